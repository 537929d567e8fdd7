// The binary segment index (format 3): entries round-trip exactly (every optional field present
// and absent, unicode strings); an index file with a damaged byte, cut short, of the old JSON
// format (2) or written for another segment is ignored, its segment rescanned and the index
// written again — byte for byte the one the relay wrote when it sealed the segment — with every
// delivery listed with the same summaries.
import { strict as assert } from 'node:assert';
import { copyFileSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ByteReader } from '../../../../../relay/server/base/bytes';
import { crc32 } from '../../../../../relay/server/base/crc32';
import {
  decodeAttempt,
  decodeDelivery,
  decodePrune,
  encodeAttempt,
  encodeDelivery,
  encodePrune,
  type AttemptEntry,
} from '../../../../../relay/server/deliveryIndex/indexEntries';
import type { IndexedDelivery } from '../../../../../relay/server/deliveryIndex/compactIndex';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { FaultyFs } from '../../support/faultyFs';
import { tempDir } from '../../support/helpers';

const TARGET = 'http://127.0.0.1:9/hook';
const IDX = /^journal-\d+\.idx$/;
const SEG = /^journal-\d+\.log$/;
const files = (dir: string, re: RegExp) =>
  readdirSync(dir)
    .filter((f) => re.test(f))
    .sort();

describe('segment index entries (binary)', () => {
  const read = (b: Buffer) => new ByteReader().at(b);

  it('a delivery entry round-trips with every optional field present, and with none', () => {
    const full: IndexedDelivery = {
      seq: 2 ** 40 + 7,
      receivedMs: Date.UTC(2026, 10, 23, 16, 0, 0, 123),
      channel: 'équipe-β',
      verification: 'rejected',
      reason: 'signature mismatch: ключ ≠ 🔑',
      event: 'pull_request.öffnen',
      deliveryId: '7f1c2d3e-0001-4a5b-8c9d-0e1f2a3b4c5d',
      metaLength: 70_000,
      targets: ['http://127.0.0.1:3000/hook', 'http://[::1]:4000/ünïcode'],
      received: { size: 5 * 2 ** 32, sha256: 'ab'.repeat(32) },
    };
    const bare: IndexedDelivery = { seq: 1, receivedMs: 0, channel: '', verification: 'verified', metaLength: 0, targets: [] };
    for (const d of [full, bare, { ...full, event: '', deliveryId: '' }]) assert.deepEqual(decodeDelivery(read(encodeDelivery(d))), d);
    // As the store reads it at open: the delivery id as its UTF-8 bytes.
    const { deliveryIdUtf8, ...rest } = decodeDelivery(read(encodeDelivery(full)), true);
    assert.deepEqual({ ...rest, deliveryId: Buffer.from(deliveryIdUtf8!).toString('utf8') }, full);
  });

  it('an attempt entry round-trips with and without status, error, replay and state (and its optional fields)', () => {
    const entries: AttemptEntry[] = [
      {
        seq: 9_007_199_254_740_991,
        attempt: {
          target: TARGET,
          atMs: 1_763_913_600_000,
          status: 502,
          ok: false,
          durationMs: 12.5,
          error: 'connect ECONNREFUSED — “nobody home” 🙈',
          replay: true,
        },
        state: { target: 'http://127.0.0.1:9/ziel-ü', status: 'failed', lastStatus: 502, attempts: 7, nextAttemptMs: 1_763_913_660_000 },
      },
      { seq: 3, attempt: { target: TARGET, atMs: 0, ok: true, durationMs: 0 } },
      // Long strings, ASCII and not (written another way than short ones).
      { seq: 6, attempt: { target: `${TARGET}/${'p'.repeat(300)}`, atMs: 1, ok: false, durationMs: 1, error: `${'e'.repeat(200)} ü ${'🔑'.repeat(100)}` } },
      { seq: 4, attempt: { target: TARGET, atMs: 5, status: 200, ok: true, durationMs: 3 }, state: { target: TARGET, status: 'ok', attempts: 1 } },
      {
        seq: 5,
        attempt: { target: TARGET, atMs: 5, ok: false, durationMs: 3, error: '' },
        state: { target: TARGET, status: 'pending', attempts: 0, nextAttemptMs: 0 },
      },
    ];
    for (const e of entries) assert.deepEqual(decodeAttempt(read(encodeAttempt(e.seq, e.attempt, e.state))), e);
  });

  it('a prune entry round-trips; an entry cut short throws instead of reading past its end', () => {
    assert.equal(decodePrune(read(encodePrune(123_456_789_012))), 123_456_789_012);
    const bytes = encodeDelivery({ seq: 1, receivedMs: 0, channel: 'default', verification: 'verified', metaLength: 1, targets: [TARGET] });
    const inside = Buffer.concat([bytes, Buffer.from('next record')]);
    assert.throws(() => decodeDelivery(new ByteReader().at(inside, 0, bytes.length - 1)), RangeError);
  });
});

/** 40 deliveries over several segments, with a reason, unicode and forward attempts among them. */
async function fill(dir: string): Promise<DeliveryStore> {
  const store = await DeliveryStore.open(dir, { segmentBytes: 700 });
  for (let i = 1; i <= 40; i++) {
    const e = await store.add(
      {
        channel: i % 3 ? 'default' : 'équipe',
        verification: i % 7 ? 'verified' : 'unverified',
        ...(i % 7 ? {} : { reason: 'no signature — sans signature' }),
        headers: [
          ['X-Service-Event', i % 2 ? 'push' : 'issues'],
          ['X-Service-Delivery', `id-${i}-ü`],
        ],
        targets: [TARGET],
      },
      Buffer.from(`body ${i} ${'.'.repeat(100)}`),
    );
    const at = new Date(1000 * i).toISOString();
    if (i % 2 === 0)
      await store.recordAttempt(
        e.summary.seq,
        { target: TARGET, at, status: 200, ok: true, durationMs: i },
        { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 },
      );
    if (i % 5 === 0)
      await store.recordAttempt(
        e.summary.seq,
        { target: TARGET, at, ok: false, durationMs: 1, error: 'ECONNRESET' },
        { target: TARGET, status: 'pending', attempts: 2, nextAttemptAt: at },
      );
  }
  return store;
}

async function snapshot(store: DeliveryStore) {
  const all = store.list({ limit: 10_000 });
  return {
    all,
    attempts: all.map((d) => store.get(d.seq)!.attempts),
    channels: store.channels(),
    pending: store.pending().map((e) => e.summary.seq),
    lastSeq: store.lastSeq,
  };
}

/** A closed store's folder, what it lists, and its index files' bytes. */
async function closedStore() {
  const dir = tempDir();
  const store = await fill(dir);
  const expected = await snapshot(store);
  await store.close();
  const idx = files(dir, IDX);
  assert.ok(idx.length > 3, `index files: ${idx.join(' ')}`);
  return { dir, expected, idx, original: idx.map((f) => readFileSync(join(dir, f))) };
}

/** Opens the folder after `spoil` changed index file `k`; the store must list the same, and the index be written again as it was. */
async function reopensAsBefore(k: number, spoil: (path: string, bytes: Buffer) => void, what: string): Promise<void> {
  const { dir, expected, idx, original } = await closedStore();
  const path = join(dir, idx[k]!);
  spoil(path, Buffer.from(original[k]!));
  const fs = new FaultyFs();
  // (the index files' path: no index snapshot, which would hold these segments' entries itself)
  const again = await DeliveryStore.open(dir, { segmentBytes: 700, fs, snapshot: false });
  const scanned = fs.calls.filter((c) => c.op === 'open' && SEG.test(c.path.split('/').at(-1)!)).map((c) => c.path.split('/').at(-1));
  assert.ok(scanned.includes(idx[k]!.replace('.idx', '.log')), `${what}: the segment was rescanned (opened: ${scanned.join(' ')})`);
  assert.deepEqual(await snapshot(again), expected, what);
  await again.close();
  assert.deepEqual(files(dir, IDX), idx);
  assert.ok(readFileSync(path).equals(original[k]!), `${what}: the index was written again, as the relay wrote it when sealing`);
}

describe('segment index files (format 3)', () => {
  it('a damaged byte anywhere in an index file (header or body) gets the segment rescanned and the index rewritten', async () => {
    const { original } = await closedStore();
    const size = original[1]!.length;
    // Magic, format, segment, bytes covered, count, body crc, header crc, first record, an entry, the last byte.
    for (const at of [0, 4, 9, 17, 25, 41, 47, 48, 60, Math.floor(size / 2), size - 1]) {
      await reopensAsBefore(
        1,
        (path, bytes) => {
          bytes[at]! ^= 0x20;
          writeFileSync(path, bytes);
        },
        `byte ${at} of ${size}`,
      );
    }
  });

  it('an index file cut short (in its header, in its body, by one byte, empty) is rebuilt', async () => {
    const { original } = await closedStore();
    const size = original[0]!.length;
    for (const keep of [0, 20, 48, Math.floor(size / 2), size - 1]) {
      await reopensAsBefore(0, (path, bytes) => writeFileSync(path, bytes.subarray(0, keep)), `kept ${keep} of ${size} bytes`);
    }
  });

  it('an old JSON (format 2) index file is ignored and rewritten in format 3', async () => {
    await reopensAsBefore(
      2,
      (path) => {
        // A well-formed v2 file that says its segment holds no records: read as such, deliveries would vanish.
        const body = Buffer.from(JSON.stringify({ strings: [], records: [] }));
        const header = JSON.stringify({ v: 2, segment: Number(/\d+/.exec(path.split('/').at(-1)!)![0]), bytes: 0, corrupt: [], count: 0, crc: crc32(body) });
        writeFileSync(path, Buffer.concat([Buffer.from(`${header}\n`), body]));
      },
      'format 2',
    );
  });

  it('damaged regions found by a scan are kept in the rebuilt index header and reported again at the next open', async () => {
    const dir = tempDir();
    let store = await DeliveryStore.open(dir, { segmentBytes: 700 });
    for (let i = 1; i <= 12; i++)
      await store.add({ channel: 'default', verification: 'verified', headers: [], targets: [] }, Buffer.from(`body-${i}-${'x'.repeat(60)}`));
    await store.close();
    // Damage the body of delivery 2 (a sealed segment) and drop that segment's index.
    const seg = files(dir, SEG).find((f) => readFileSync(join(dir, f)).includes('body-2-'))!;
    const bytes = readFileSync(join(dir, seg));
    bytes[bytes.indexOf('body-2-') + 3]! ^= 0x01;
    writeFileSync(join(dir, seg), bytes);
    unlinkSync(join(dir, seg.replace('.log', '.idx')));
    const seen: { offset: number; bytes: number }[][] = [[], []];
    for (const round of [0, 1]) {
      const fs = new FaultyFs();
      store = await DeliveryStore.open(dir, { segmentBytes: 700, fs, onCorrupt: (c) => seen[round]!.push({ offset: c.offset, bytes: c.bytes }) });
      assert.ok(!store.get(2) && store.get(1) && store.get(3), `round ${round}: delivery 2 skipped, its neighbours kept`);
      assert.equal(store.integrity().corruptRecords, 1);
      const scanned = fs.calls.some((c) => c.op === 'open' && c.path.endsWith(seg));
      assert.equal(scanned, round === 0, `round ${round}: the segment is scanned only when its index is missing`);
      await store.close();
    }
    assert.equal(seen[0]!.length, 1);
    assert.deepEqual(seen[1], seen[0]);
  });

  it("another segment's index file (valid in itself) is not taken for this one", async () => {
    await reopensAsBefore(
      1,
      (path) =>
        copyFileSync(
          path.replace(/\d{10}\.idx$/, (m) => `${String(Number(m.slice(0, 10)) - 1).padStart(10, '0')}.idx`),
          path,
        ),
      'copied from the segment before',
    );
  });
});
