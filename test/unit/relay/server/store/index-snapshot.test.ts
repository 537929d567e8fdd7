// Issue 40: the file store's index snapshot. A store opened from a snapshot answers every query
// exactly as one rebuilt from the journal (generated journals: channels and generations, every
// verification and forward outcome, replays, prunes, dropped rejected deliveries, damaged records,
// torn tails; snapshots taken at different places), and a snapshot that does not match its
// journal is never used: the store is then the rebuild.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, rmSync, writeFileSync, existsSync, renameSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { crc32 } from '../../../../../relay/server/base/crc32';
import { SNAPSHOT_FILE } from '../../../../../relay/server/journal/snapshotFile';
import { tempDir } from '../../support/helpers';
import { answers, copyOf, damageAfterSnapshot, random, run, snapshotSize, tearTail, worldOptions } from './snapshotWorld';

/** Opens a copy of `dir` twice: rebuilt from the journal (no snapshot read) and as the store would (snapshot when it matches). */
async function bothWays(dir: string, seed: number): Promise<{ rebuilt: string; fromSnapshot: string; used: boolean; problems: string[] }> {
  const problems: string[] = [];
  const a = await DeliveryStore.open(copyOf(dir, tempDir()), worldOptions(random(seed), { snapshot: false }));
  const b = await DeliveryStore.open(copyOf(dir, tempDir()), worldOptions(random(seed), { snapshot: { every: 1e9 }, onProblem: (l) => problems.push(l) }));
  const result = { rebuilt: await answers(a), fromSnapshot: await answers(b), used: b.log.snapshotUsed !== undefined, problems };
  await a.release();
  await b.release();
  return result;
}

/**
 * A generated journal: a run with snapshots, killed; a run that writes none (its records come
 * after the snapshot), killed; damage inside one of those records and a torn tail; a last run
 * with snapshots, killed (a torn tail after it) or stopped.
 */
async function world(seed: number, every: number, clean: boolean, lastAppendOnly = false): Promise<string> {
  const dir = tempDir();
  const rnd = random(seed);
  const first = await DeliveryStore.open(dir, worldOptions(rnd, { snapshot: { every } }));
  await run(first, rnd, 120);
  await first.release();
  const between = await DeliveryStore.open(dir, worldOptions(rnd, { snapshot: false }));
  await run(between, rnd, 30, true);
  await between.release();
  assert.ok(damageAfterSnapshot(dir), 'a record after the snapshot was damaged');
  tearTail(dir);
  const last = await DeliveryStore.open(dir, worldOptions(rnd, { snapshot: { every } }));
  assert.equal(last.integrity().corruptRecords, 1, 'the damage is found');
  await run(last, rnd, 150, lastAppendOnly);
  if (clean) await last.close();
  else await last.release();
  if (!clean) tearTail(dir);
  return dir;
}

describe('file store: index snapshot (issue 40)', function () {
  this.timeout(120_000);

  for (const [seed, every, clean] of [
    [1, 7, false],
    [2, 25, false],
    [3, 60, true],
    [4, 1, false],
    [5, 13, true],
  ] as const) {
    it(`answers as the rebuild does (seed ${seed}, a snapshot every ${every} records, ${clean ? 'clean stop' : 'killed'})`, async () => {
      const dir = await world(seed, every, clean);
      assert.ok(snapshotSize(dir) > 0, 'a snapshot was written');
      const r = await bothWays(dir, seed);
      assert.deepEqual(r.problems, []);
      assert.ok(r.used, 'the snapshot was used');
      assert.equal(r.fromSnapshot, r.rebuilt);
    });
  }

  it('counts damage in segments it does not read again as the rebuild does', async () => {
    const dir = await world(7, 9, false, true);
    const r = await bothWays(dir, 7);
    assert.ok(r.used);
    assert.equal((JSON.parse(r.rebuilt) as { integrity: { corruptRecords: number } }).integrity.corruptRecords, 1, 'the damaged segment is still there');
    assert.equal(r.fromSnapshot, r.rebuilt);
  });

  it("indexes what is journaled after the snapshot, in order, once (a second open from the first one's snapshot)", async () => {
    const dir = await world(6, 10, false);
    const rnd = random(60);
    const opened = await DeliveryStore.open(dir, worldOptions(rnd, { snapshot: { every: 1e9 } }));
    assert.ok(opened.log.snapshotUsed);
    await run(opened, rnd, 40);
    await opened.release();
    const r = await bothWays(dir, 6);
    assert.equal(r.fromSnapshot, r.rebuilt);
  });

  it('a state it cannot copy stops snapshots with one line, and never fails an append', async () => {
    const problems: string[] = [];
    const store = await DeliveryStore.open(tempDir(), worldOptions(random(9), { snapshot: { every: 1 }, onProblem: (l) => problems.push(l) }));
    (store as unknown as { index: Record<string, unknown> }).index.notData = () => 1; // what an image cannot keep
    const meta = { channel: 'default', verification: 'verified' as const, headers: [], targets: [] };
    assert.equal((await store.add(meta, Buffer.from('a'))).seq, 1);
    assert.equal((await store.add(meta, Buffer.from('b'))).seq, 2);
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0]!, /cannot take an index snapshot \(cannot keep a function\); none is written until the next start/);
    await store.close();
  });

  describe('a snapshot that does not match is never used', () => {
    /** A cleanly stopped journal (its snapshot at the end), and its answers rebuilt. */
    async function stopped(seed: number): Promise<string> {
      const dir = tempDir();
      const rnd = random(seed);
      const store = await DeliveryStore.open(dir, worldOptions(rnd, { snapshot: { every: 1 } }));
      await run(store, rnd, 200);
      await store.close();
      assert.ok(existsSync(join(dir, SNAPSHOT_FILE)));
      return dir;
    }

    async function refused(dir: string, why: RegExp): Promise<void> {
      const r = await bothWays(dir, 0);
      assert.equal(r.used, false, 'not used');
      assert.equal(r.problems.length, 1, r.problems.join('\n'));
      assert.match(r.problems[0]!, /the index snapshot does not match the journal/);
      assert.match(r.problems[0]!, why);
      assert.equal(r.fromSnapshot, r.rebuilt);
    }

    /** Rewrites a header field of the snapshot and its header crc (a header that checks out, naming something else). */
    function rewriteHeader(dir: string, at: number, value: number): void {
      const path = join(dir, SNAPSHOT_FILE);
      const buf = readFileSync(path);
      buf.writeUInt32LE(value, at);
      const end = 64 + 24 * buf.readUInt32LE(52);
      buf.writeUInt32LE(crc32(buf.subarray(0, end)), end);
      writeFileSync(path, buf);
    }

    it('a wrong fingerprint', async () => {
      const dir = await stopped(11);
      rewriteHeader(dir, 44, 12345);
      await refused(dir, /is not the one it was taken after/);
    });

    it('cut short', async () => {
      const dir = await stopped(12);
      const path = join(dir, SNAPSHOT_FILE);
      truncateSync(path, Math.floor(readFileSync(path).length / 2));
      await refused(dir, /cut short/);
    });

    it('a bit flipped in its body', async () => {
      const dir = await stopped(13);
      const path = join(dir, SNAPSHOT_FILE);
      const buf = readFileSync(path);
      buf[buf.length - 100]! ^= 0x10;
      writeFileSync(path, buf);
      await refused(dir, /fails its checksum/);
    });

    it('a bit flipped in its header', async () => {
      const dir = await stopped(14);
      const path = join(dir, SNAPSHOT_FILE);
      const buf = readFileSync(path);
      buf[20]! ^= 0x01;
      writeFileSync(path, buf);
      await refused(dir, /header does not check out/);
    });

    it("another journal's", async () => {
      const dir = await stopped(15);
      const other = await stopped(16);
      renameSync(join(other, SNAPSHOT_FILE), join(dir, SNAPSHOT_FILE));
      await refused(dir, /segments|not the one it was taken after|does not end at its position|shorter/);
    });

    it('a segment it names is gone', async () => {
      const dir = await stopped(17);
      const first = readdirSync(dir)
        .filter((n) => n.endsWith('.log'))
        .sort()[1]!;
      rmSync(join(dir, first));
      rmSync(join(dir, first.replace('.log', '.idx')), { force: true });
      await refused(dir, /it names segments/);
    });

    it('older than a prune that removed segments', async () => {
      const dir = await stopped(18);
      const old = readFileSync(join(dir, SNAPSHOT_FILE));
      const store = await DeliveryStore.open(dir, worldOptions(random(18), { snapshot: false }));
      await store.prune({ keep: 5 });
      await store.close();
      writeFileSync(join(dir, SNAPSHOT_FILE), old);
      await refused(dir, /it names segments/);
    });
  });
});
