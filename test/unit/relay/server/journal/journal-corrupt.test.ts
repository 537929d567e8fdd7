// Damage in the middle of a segment versus a torn tail: a flipped byte in one record must not
// drop the (acknowledged, intact) records after it, must be reported, and must never lead to a
// seq being given out twice — also when the damaged record is the last one.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { JournalCorruptError } from '../../../../../relay/server/journal/journal';
import { startRelay } from '../../../../../relay/server';
import { tempDir } from '../../support/helpers';

const meta = { channel: 'default', verification: 'unverified' as const, headers: [] as [string, string][], targets: [] };

function segmentFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /^journal-\d+\.log$/.test(f))
    .sort();
}

/** Flips one byte of `marker`'s first occurrence in the segment files (a body byte of one record). */
function flipByteOf(dir: string, marker: string): void {
  for (const f of segmentFiles(dir)) {
    const bytes = readFileSync(join(dir, f));
    const at = bytes.indexOf(marker);
    if (at < 0) continue;
    bytes[at + 3]! ^= 0x01;
    writeFileSync(join(dir, f), bytes);
    return;
  }
  throw new Error(`${marker} not found`);
}

/**
 * Removes the index files, so the next open scans the segments (as after a crash, or when an
 * index is rebuilt); a segment read through its index finds damage only when a record is read.
 */
function dropIndexes(dir: string): void {
  for (const f of readdirSync(dir).filter((n) => /\.idx$/.test(n))) unlinkSync(join(dir, f));
}

async function bodiesOf(store: DeliveryStore): Promise<string[]> {
  const out: string[] = [];
  for (const e of store.after(0)) out.push((await store.read(e.summary.seq))!.body.toString());
  return out;
}

describe('relay journal: corruption in the middle', () => {
  it('skips a damaged record, keeps every later one, reports it, and gives out no seq twice', async () => {
    const dir = tempDir();
    const logged: { offset: number; bytes: number }[] = [];
    let store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 5; i++) await store.add(meta, Buffer.from(`body-${i}-${'x'.repeat(50)}`));
    await store.close();
    flipByteOf(dir, 'body-2-');
    dropIndexes(dir);
    store = await DeliveryStore.open(dir, { onCorrupt: (c) => logged.push(c) });
    assert.deepEqual(
      [...store.after(0)].map((e) => e.summary.seq),
      [1, 3, 4, 5],
    );
    assert.deepEqual(
      (await bodiesOf(store)).map((b) => b.slice(0, 6)),
      ['body-1', 'body-3', 'body-4', 'body-5'],
    );
    assert.equal(store.integrity().corruptRecords, 1);
    assert.equal(logged.length, 1);
    assert.equal(store.integrity().truncatedBytes, 0);
    assert.equal((await store.add(meta, Buffer.from('body-6'))).summary.seq, 6);
    await store.close();
  });

  it('resynchronises when the damage is in a record header (its length)', async () => {
    const dir = tempDir();
    let store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 4; i++) await store.add(meta, Buffer.from(`body-${i}`));
    const second = store.get(2)!.loc;
    await store.close();
    const file = join(dir, segmentFiles(dir)[0]!);
    const bytes = readFileSync(file);
    bytes[second.offset + 1]! ^= 0x40; // the length field: 16 KiB more than written
    writeFileSync(file, bytes);
    dropIndexes(dir);
    store = await DeliveryStore.open(dir);
    assert.deepEqual(
      [...store.after(0)].map((e) => e.summary.seq),
      [1, 3, 4],
    );
    assert.equal(store.integrity().corruptRecords, 1);
    await store.close();
  });

  it('a damaged last delivery: its seq is not given out again (the seq mark holds it)', async () => {
    const dir = tempDir();
    let store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 3; i++) await store.add(meta, Buffer.from(`body-${i}-${'y'.repeat(20)}`));
    await store.close();
    flipByteOf(dir, 'body-3-');
    dropIndexes(dir);
    store = await DeliveryStore.open(dir);
    assert.deepEqual(
      [...store.after(0)].map((e) => e.summary.seq),
      [1, 2],
    );
    assert.equal(store.lastSeq, 3);
    assert.equal((await store.add(meta, Buffer.from('next'))).summary.seq, 4);
    await store.close();
  });

  it('after a crash (no clean close) seqs continue above every seq that could have been acknowledged', async () => {
    const dir = tempDir();
    const store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 3; i++) await store.add(meta, Buffer.from(`body-${i}-${'z'.repeat(20)}`));
    // No close(): as after kill -9. The last record is then damaged on disk.
    await store.release();
    flipByteOf(dir, 'body-3-');
    const again = await DeliveryStore.open(dir);
    assert.ok(again.lastSeq >= 3, `lastSeq ${again.lastSeq}`);
    assert.ok((await again.add(meta, Buffer.from('next'))).summary.seq > 3);
    await again.close();
  });

  it('damage in a segment read through its index is found when the record is read: typed error, counted, logged once', async () => {
    const dir = tempDir();
    let store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 3; i++) await store.add(meta, Buffer.from(`body-${i}-${'v'.repeat(30)}`));
    await store.close();
    flipByteOf(dir, 'body-2-');
    const logged: unknown[] = [];
    store = await DeliveryStore.open(dir, { onCorrupt: (c) => logged.push(c) });
    assert.equal(store.integrity().corruptRecords, 0, 'the index covers the segment: nothing scanned');
    await assert.rejects(store.read(2), JournalCorruptError);
    await assert.rejects(store.read(2), JournalCorruptError);
    assert.equal((await store.read(3))!.body.toString().slice(0, 6), 'body-3');
    assert.equal(store.integrity().corruptRecords, 1);
    assert.equal(logged.length, 1);
    await store.close();
  });

  it('prune rotates the active segment when nothing in it is kept, so its file is freed', async () => {
    const dir = tempDir();
    let store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 3; i++) await store.add(meta, Buffer.alloc(1000, i));
    const first = segmentFiles(dir)[0];
    assert.deepEqual(await store.prune({ keep: 0 }), { removed: 3, remaining: 0 });
    assert.ok(!segmentFiles(dir).includes(first!), `${first} still there: ${segmentFiles(dir).join(' ')}`);
    await store.close();
    store = await DeliveryStore.open(dir);
    assert.equal(store.size, 0);
    assert.equal((await store.add(meta, Buffer.from('after'))).summary.seq, 4);
    await store.close();
  });

  it('the relay logs the damage and reports it in /api/status', async () => {
    const dir = tempDir();
    const store = await DeliveryStore.open(dir);
    for (let i = 1; i <= 3; i++) await store.add(meta, Buffer.from(`body-${i}-${'w'.repeat(30)}`));
    await store.close();
    flipByteOf(dir, 'body-2-');
    dropIndexes(dir);
    const lines: string[] = [];
    const relay = await startRelay({ port: 0, dataDir: dir, secrets: ['s'], log: (l: string) => lines.push(l) });
    try {
      const res = await request(`${relay.url}/api/status`, { headers: { authorization: `Bearer ${relay.token}` } });
      const status = (await res.body.json()) as { journal?: { corruptRecords: number }; lastSeq: number };
      assert.equal(status.journal?.corruptRecords, 1);
      assert.equal(status.lastSeq, 3);
      assert.ok(
        lines.some((l) => /journal: skipped \d+ damaged bytes/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await relay.close();
    }
  });
});
