// The delivery and attempt records: new ones are binary (a delivery's meta embeds its index entry;
// an attempt record is its index entry), and journals written before (JSON meta, JSON attempts)
// are still read: index, headers and body byte-exact, forward states, through a scan and through
// sealed segments' index files alike.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Journal } from '../../../../../relay/server/journal/journal';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { T_ATTEMPT, T_ATTEMPT_ENTRY, T_DELIVERY } from '../../../../../relay/server/store/storeRecords';
import { HEADER_BYTES } from '../../../../../relay/server/journal/journalScan';
import type { DeliveryMeta } from '../../../../../relay/server/base/storeTypes';
import { tempDir } from '../../support/helpers';

const TARGET = 'http://127.0.0.1:9/hook';
// Header values arrive latin1-decoded: a byte above 0x7f must come back as the same character.
const HEADERS: [string, string][] = [
  ['Host', '127.0.0.1:1'],
  ['X-Service-Event', 'push'],
  ['X-Service-Delivery', 'old-1'],
  ['X-Note', 'caf\u00e9'],
  ['x-service-event', 'second'],
];
const BODY = Buffer.from([0x7b, 0x22, 0xff, 0x00, 0x0a, 0x7d]);

/** One delivery record as the relay wrote it before issue 24: u32 length | JSON meta | body. */
function oldDelivery(meta: DeliveryMeta, body: Buffer): Buffer[] {
  const json = Buffer.from(JSON.stringify(meta), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  return [len, json, body];
}

function oldAttempt(seq: number, ok: boolean): Buffer {
  const attempt = { target: TARGET, at: '2026-01-02T03:04:05.006Z', status: ok ? 200 : 503, ok, durationMs: 4 };
  const state = ok
    ? { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 }
    : { target: TARGET, status: 'pending', attempts: 1, lastStatus: 503, nextAttemptAt: '2026-01-02T03:05:05.006Z' };
  return Buffer.from(JSON.stringify({ seq, attempt, state }), 'utf8');
}

/** The record types in a segment file, in order. */
function recordTypes(file: string): number[] {
  const buf = readFileSync(file);
  const types: number[] = [];
  for (let at = 0; at + HEADER_BYTES <= buf.length; at += HEADER_BYTES + buf.readUInt32LE(at)) types.push(buf[at + 8]!);
  return types;
}

async function writeOldJournal(dir: string): Promise<void> {
  const j = await Journal.open(dir);
  const base = { channel: 'default', verification: 'verified' as const, targets: [TARGET] };
  await j.append(T_DELIVERY, oldDelivery({ seq: 1, receivedAt: '2026-01-02T03:04:05.000Z', ...base, headers: HEADERS }, BODY));
  await j.append(T_ATTEMPT, [oldAttempt(1, true)]);
  await j.append(
    T_DELIVERY,
    oldDelivery({ seq: 2, receivedAt: '2026-01-02T03:04:06.000Z', ...base, headers: [['X-Service-Delivery', 'old-2']] }, Buffer.from('two')),
  );
  await j.append(T_ATTEMPT, [oldAttempt(2, false)]);
  await j.close();
}

async function assertOld(store: DeliveryStore): Promise<void> {
  const one = await store.read(1);
  assert.deepEqual(one?.meta.headers, HEADERS);
  assert.equal(one?.meta.receivedAt, '2026-01-02T03:04:05.000Z');
  assert.deepEqual(one?.body, BODY);
  assert.equal(store.get(1)?.summary.deliveryId, 'old-1');
  assert.deepEqual(
    store.get(1)?.summary.forward.map((f) => [f.status, f.attempts]),
    [['ok', 1]],
  );
  assert.deepEqual(
    store.get(2)?.summary.forward.map((f) => [f.status, f.attempts, f.lastStatus]),
    [['pending', 1, 503]],
  );
  assert.deepEqual(
    store.pending().map((e) => e.seq),
    [2],
  );
}

describe('journal record format', () => {
  it('reads a journal of JSON records (before issue 24), then writes binary ones beside them; both survive restarts', async () => {
    const dir = tempDir();
    await writeOldJournal(dir);
    let store = await DeliveryStore.open(dir, { now: () => Date.parse('2026-02-03T04:05:06.789Z') });
    await assertOld(store);
    const e = await store.add({ channel: 'default', verification: 'verified', headers: [...HEADERS, ['X-Service-Delivery', 'dup']], targets: [TARGET] }, BODY);
    assert.equal(e.seq, 3);
    await store.recordAttempt(
      3,
      { target: TARGET, at: '2026-02-03T04:05:07.000Z', status: 200, ok: true, durationMs: 2 },
      { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 },
    );
    await store.close();
    // The new records are the binary ones: a delivery whose meta starts with 1, an attempt of type 5.
    const seg = join(
      dir,
      readdirSync(dir).find((n) => n.endsWith('.log'))!,
    );
    assert.deepEqual(recordTypes(seg), [T_DELIVERY, T_ATTEMPT, T_DELIVERY, T_ATTEMPT, T_DELIVERY, T_ATTEMPT_ENTRY]);
    assert.equal(readFileSync(seg).includes('"seq":3'), false);

    for (const reopen of ['index file (clean close)', 'scan (index file gone)']) {
      if (reopen.startsWith('scan')) {
        const idx = readdirSync(dir).filter((x) => x.endsWith('.idx'));
        assert.ok(idx.length > 0, 'a clean close wrote the index file');
        for (const n of idx) unlinkSync(join(dir, n));
      }
      store = await DeliveryStore.open(dir);
      await assertOld(store);
      const three = await store.read(3);
      assert.deepEqual(three?.meta.headers, [...HEADERS, ['X-Service-Delivery', 'dup']], reopen);
      assert.equal(three?.meta.receivedAt, '2026-02-03T04:05:06.789Z');
      assert.deepEqual(three?.body, BODY);
      assert.equal(store.get(3)?.summary.deliveryId, 'old-1', 'the first X-Service-Delivery wins');
      assert.deepEqual(
        store.get(3)?.summary.forward.map((f) => [f.status, f.attempts]),
        [['ok', 1]],
      );
      const reader = await store.openBody!(3);
      assert.deepEqual(reader?.meta, three?.meta);
      assert.deepEqual(await reader?.next(1 << 20), BODY);
      await store.close();
    }
  });

  it("keeps a rejected delivery's reason, received size and channel generation in the binary meta", async () => {
    const dir = tempDir();
    let store = await DeliveryStore.open(dir);
    const received = { size: 1 << 20, sha256: 'ab'.repeat(32) };
    await store.add(
      {
        channel: 'api-ch',
        gen: 'g7',
        verification: 'rejected',
        reason: 'the signature does not match',
        headers: [['X-Service-Delivery', 'r1']],
        targets: [],
        received,
      },
      Buffer.from('prefix'),
    );
    await store.close();
    store = await DeliveryStore.open(dir);
    const r = await store.read(1);
    assert.equal(r?.meta.reason, 'the signature does not match');
    assert.equal(r?.meta.gen, 'g7');
    assert.deepEqual(r?.meta.received, received);
    assert.deepEqual(r?.body, Buffer.from('prefix'));
    await store.close();
  });
});
