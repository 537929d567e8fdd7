// The journal's failure paths, made real through its file seam: a write that fails half-way
// (ENOSPC), a truncate that fails too, a rotation that fails as well, a closed journal, a record
// whose bytes changed on disk, a segment reader whose open failed once.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Journal, JournalClosedError, JournalCorruptError, JournalFailedError, SYNC_READ_MAX_BYTES } from '../../../../../relay/server/journal/journal';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { SYNC_WRITE_MAX_BYTES } from '../../../../../relay/server/journal/batchWrite';
import { FaultyFs } from '../../support/faultyFs';
import { tempDir } from '../../support/helpers';

const meta = { channel: 'default', verification: 'unverified' as const, headers: [] as [string, string][], targets: [] };

async function bodies(dir: string): Promise<Map<number, string>> {
  const store = await DeliveryStore.open(dir);
  const out = new Map<number, string>();
  for (const e of store.after(0)) out.set(e.summary.seq, (await store.read(e.summary.seq))!.body.toString());
  await store.close();
  return out;
}

describe('relay journal: failure paths', () => {
  it('ENOSPC half-way through a write: A and C (acknowledged) are readable before and after a restart, B is not', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    const store = await DeliveryStore.open(dir, { fs });
    const a = await store.add(meta, Buffer.from('A'.repeat(300)));
    // B's batch writes 100 of its bytes, then the disk is full.
    fs.fail('writev', { code: 'ENOSPC', partialBytes: 100, times: 1 });
    await assert.rejects(store.add(meta, Buffer.from('B'.repeat(300))), /ENOSPC/);
    const c = await store.add(meta, Buffer.from('C'.repeat(300)));
    assert.equal((await store.read(a.summary.seq))!.body.toString(), 'A'.repeat(300));
    assert.equal((await store.read(c.summary.seq))!.body.toString(), 'C'.repeat(300));
    await store.close();
    const after = await bodies(dir);
    assert.deepEqual([...after.keys()], [a.summary.seq, c.summary.seq]);
    assert.equal(after.get(a.summary.seq), 'A'.repeat(300));
    assert.equal(after.get(c.summary.seq), 'C'.repeat(300));
  });

  it('a batch over SYNC_WRITE_MAX_BYTES is written through the thread pool, and ENOSPC there is handled alike', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    const store = await DeliveryStore.open(dir, { fs });
    const big = (ch: string) => Buffer.alloc(SYNC_WRITE_MAX_BYTES + 1, ch);
    const a = await store.add(meta, big('a'));
    assert.equal(fs.syncWrites, 0, 'a big batch is not written on the event loop');
    fs.fail('writev', { code: 'ENOSPC', partialBytes: 4096, times: 1 });
    await assert.rejects(store.add(meta, big('b')), /ENOSPC/);
    const c = await store.add(meta, Buffer.from('c'));
    assert.equal(fs.syncWrites, 1, 'a small batch is');
    await store.close();
    const after = await bodies(dir);
    assert.deepEqual([...after.keys()], [a.summary.seq, c.summary.seq]);
    assert.ok(after.get(a.summary.seq)!.length === SYNC_WRITE_MAX_BYTES + 1 && /^a+$/.test(after.get(a.summary.seq)!));
    assert.equal(after.get(c.summary.seq), 'c');
  });

  it('when the partial write cannot be cut off, the next record goes to a fresh segment', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    const store = await DeliveryStore.open(dir, { fs });
    await store.add(meta, Buffer.from('A'));
    fs.fail('writev', { code: 'ENOSPC', partialBytes: 5, times: 1 });
    fs.fail('truncate', { code: 'EIO', times: 1 });
    await assert.rejects(store.add(meta, Buffer.from('B')), /ENOSPC/);
    await store.add(meta, Buffer.from('C'));
    await store.close();
    assert.equal(readdirSync(dir).filter((f) => /^journal-\d+\.log$/.test(f)).length, 2);
    assert.deepEqual([...(await bodies(dir)).values()], ['A', 'C']);
  });

  it('when neither cutting nor rotating works, every later append is refused with JournalFailedError', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    const j = await Journal.open(dir, { fs });
    await j.append(1, [Buffer.from('A')]);
    fs.fail('writev', { code: 'ENOSPC', partialBytes: 3, times: 1 });
    fs.fail('truncate', { code: 'EIO' });
    fs.fail('open', { code: 'ENOSPC', mode: 'append' });
    await assert.rejects(j.append(1, [Buffer.from('B')]), /ENOSPC/);
    fs.clear();
    await assert.rejects(j.append(1, [Buffer.from('C')]), JournalFailedError);
    await assert.rejects(j.append(1, [Buffer.from('D')], { lazy: true }), JournalFailedError);
    assert.ok(j.failed instanceof JournalFailedError);
    await j.close();
  });

  it('a closed journal refuses appends with JournalClosedError', async () => {
    const j = await Journal.open(tempDir());
    await j.close();
    await assert.rejects(j.append(1, [Buffer.from('late')]), JournalClosedError);
  });

  it('a record whose bytes changed on disk reads as JournalCorruptError, not as wrong data', async () => {
    const dir = tempDir();
    const store = await DeliveryStore.open(dir);
    const e = await store.add(meta, Buffer.from('original body'));
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.startsWith('journal-'))!,
    );
    const bytes = readFileSync(file);
    bytes[bytes.length - 2] ^= 0x20;
    writeFileSync(file, bytes);
    await assert.rejects(store.read(e.summary.seq), JournalCorruptError);
    await store.close();
  });

  it('a record up to SYNC_READ_MAX_BYTES is read on the calling thread, a larger one through the pool; both checked', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    const store = await DeliveryStore.open(dir, { fs });
    const small = await store.add(meta, Buffer.alloc(10 * 1024, 's'));
    const large = await store.add(meta, Buffer.alloc(SYNC_READ_MAX_BYTES, 'l'));
    assert.equal((await store.read(small.summary.seq))!.body.toString(), 's'.repeat(10 * 1024));
    assert.equal(fs.syncReads, 1, 'a small record is read synchronously');
    assert.equal((await store.read(large.summary.seq))!.body.toString(), 'l'.repeat(SYNC_READ_MAX_BYTES));
    assert.equal(fs.syncReads, 1, 'a large one is not');
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.log'))!,
    );
    const bytes = readFileSync(file);
    bytes[200] ^= 0x20; // inside the small record's body
    writeFileSync(file, bytes);
    await assert.rejects(store.read(small.summary.seq), JournalCorruptError);
    await store.close();
  });

  it('a segment reader whose open failed is not kept: the next read opens it again', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    const store = await DeliveryStore.open(dir, { fs });
    const e = await store.add(meta, Buffer.from('readable'));
    fs.fail('open', { code: 'EMFILE', mode: 'read', times: 1 });
    await assert.rejects(store.read(e.summary.seq), /EMFILE/);
    assert.equal((await store.read(e.summary.seq))!.body.toString(), 'readable');
    await store.close();
  });

  it('syncs the directory when it creates a segment', async () => {
    const fs = new FaultyFs();
    const store = await DeliveryStore.open(tempDir(), { fs, segmentBytes: 1 });
    await store.add(meta, Buffer.from('one'));
    await store.add(meta, Buffer.from('two'));
    // Every segment created is followed by a directory sync before a record is written to it.
    const ops = fs.calls.map((c) => `${c.op}:${c.path.split('/').at(-1)}`);
    const created = ops.flatMap((op, i) => (/^open:journal-\d+\.log$/.test(op) ? [i] : []));
    assert.equal(created.length, 2, ops.join(' '));
    for (const i of created) {
      const rest = ops.slice(i + 1);
      const sync = rest.findIndex((op) => op.startsWith('syncDir'));
      const write = rest.findIndex((op) => op.startsWith('writev'));
      assert.ok(sync >= 0 && (write < 0 || sync < write), ops.join(' '));
    }
    await store.close();
  });
});
