// The journal (relay/server/journal/journal.ts): crc32's check value, group commit of concurrent
// appends, 0700/0600 modes, a torn tail truncated and a bad checksum dropped at start-up, segment
// rotation, and pruning by count and by age.
import { strict as assert } from 'node:assert';
import { appendFileSync, readdirSync, statSync, truncateSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Journal, HEADER_BYTES } from '../../../../../relay/server/journal/journal';
import { crc32, crc32Portable } from '../../../../../relay/server/base/crc32';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { tempDir } from '../../support/helpers';

function collect(dir: string, opts: { segmentBytes?: number } = {}) {
  const records: { type: number; payload: string }[] = [];
  const truncations: { dropped: number }[] = [];
  return Journal.open(dir, {
    ...opts,
    onRecord: (type, payload) => records.push({ type, payload: payload.toString() }),
    onTruncate: (t) => truncations.push(t),
  }).then((j) => ({ j, records, truncations }));
}

describe('relay journal', () => {
  it('crc32 matches the known check value with both implementations', () => {
    const data = Buffer.from('123456789');
    assert.equal(crc32(data), 0xcbf43926);
    assert.equal(crc32Portable(data), 0xcbf43926);
    assert.equal(crc32(Buffer.from('56789'), crc32(Buffer.from('1234'))), 0xcbf43926);
  });

  it('group-commits concurrent appends into fewer fdatasyncs and reads them back in order', async () => {
    const dir = tempDir();
    const { j } = await collect(dir);
    const locs = await Promise.all(Array.from({ length: 200 }, (_, i) => j.append(1, [Buffer.from(`record ${i}`)])));
    assert.ok(j.syncs < 200 / 4, `expected batching, got ${j.syncs} syncs for 200 appends`);
    assert.equal((await j.read(locs[123]!)).toString(), 'record 123');
    await j.close();
    const again = await collect(dir);
    assert.deepEqual(
      again.records.map((r) => r.payload),
      Array.from({ length: 200 }, (_, i) => `record ${i}`),
    );
    await again.j.close();
  });

  it('creates the directory 0700 and segment files 0600', async () => {
    const dir = join(tempDir(), 'nested', 'data');
    const { j } = await collect(dir);
    await j.append(1, [Buffer.from('x')]);
    await j.close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
  });

  it('truncates a torn tail (a record cut in the middle) at start-up and keeps appending after it', async () => {
    const dir = tempDir();
    const { j } = await collect(dir);
    await j.append(1, [Buffer.from('first')]);
    await j.append(1, [Buffer.from('second record that will be torn')]);
    await j.close();
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.startsWith('journal-'))!,
    );
    const full = statSync(file).size;
    truncateSync(file, full - 7); // a real torn write: the tail of the last record is gone
    const r = await collect(dir);
    assert.deepEqual(
      r.records.map((x) => x.payload),
      ['first'],
    );
    assert.equal(r.truncations.length, 1);
    assert.equal(statSync(file).size, HEADER_BYTES + 5);
    await r.j.append(1, [Buffer.from('third')]);
    await r.j.close();
    const r2 = await collect(dir);
    assert.deepEqual(
      r2.records.map((x) => x.payload),
      ['first', 'third'],
    );
    await r2.j.close();
  });

  it('drops a record whose checksum does not match, and a partial header', async () => {
    const dir = tempDir();
    const { j } = await collect(dir);
    await j.append(1, [Buffer.from('good')]);
    await j.append(1, [Buffer.from('flipped')]);
    await j.close();
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.startsWith('journal-'))!,
    );
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    appendFileSync(file, Buffer.from([1, 2, 3]));
    const r = await collect(dir);
    assert.deepEqual(
      r.records.map((x) => x.payload),
      ['good'],
    );
    assert.equal(statSync(file).size, HEADER_BYTES + 4);
    await r.j.close();
  });

  it('rotates segments and prunes whole segments by count', async () => {
    const dir = tempDir();
    const store = await DeliveryStore.open(dir, { segmentBytes: 512 });
    for (let i = 0; i < 40; i++) await store.add({ channel: 'default', verification: 'unverified', headers: [], targets: [] }, Buffer.alloc(100, i));
    const before = readdirSync(dir).filter((f) => f.startsWith('journal-')).length;
    assert.ok(before > 3, `expected several segments, got ${before}`);
    const res = await store.prune({ keep: 5 });
    assert.deepEqual(res, { removed: 35, remaining: 5 });
    const after = readdirSync(dir).filter((f) => f.startsWith('journal-')).length;
    assert.ok(after < before, `segments ${before} -> ${after}`);
    await store.close();
    const reopened = await DeliveryStore.open(dir, { segmentBytes: 512 });
    assert.deepEqual(
      reopened.list({}).map((d) => d.seq),
      [40, 39, 38, 37, 36],
    );
    assert.equal(reopened.lastSeq, 40);
    assert.equal((await reopened.read(38))!.body[0], 37);
    await reopened.close();
  });

  it('prunes by age', async () => {
    const dir = tempDir();
    let now = 1_000_000;
    const store = await DeliveryStore.open(dir, { now: () => now });
    await store.add({ channel: 'a', verification: 'unverified', headers: [], targets: [] }, Buffer.from('old'));
    now += 10_000;
    await store.add({ channel: 'a', verification: 'unverified', headers: [], targets: [] }, Buffer.from('new'));
    assert.deepEqual(await store.prune({ olderThanMs: 5_000 }), { removed: 1, remaining: 1 });
    assert.deepEqual(
      store.list({}).map((d) => d.seq),
      [2],
    );
    await store.close();
  });
});
