// Segment index files and the compact in-memory index: a restart reads sealed segments through
// their index files (and scans only the current segment); a missing or damaged index, or one
// never written because the relay died between sealing a segment and indexing it, is rebuilt from
// its segment; counters, the pending set and cursor paging stay right through forwards and prunes.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import type { ForwardAttempt } from '../../../../../src/core/relay/protocol';
import { startRelay } from '../../../../../relay/server';
import { RelayApi } from '../../../../../relay/client/api';
import { FaultyFs } from '../../support/faultyFs';
import { tempDir } from '../../support/helpers';

const TARGET = 'http://127.0.0.1:9/hook';

function meta(i: number, channel = i % 3 === 0 ? 'ci' : 'default') {
  return {
    channel,
    verification: 'verified' as const,
    headers: [
      ['X-Service-Event', i % 2 ? 'push' : 'issues'],
      ['X-Service-Delivery', `id-${i}`],
    ] as [string, string][],
    targets: [TARGET],
  };
}

function attempt(ok: boolean): ForwardAttempt {
  return { target: TARGET, at: new Date(0).toISOString(), status: ok ? 200 : 500, ok, durationMs: 1 };
}

/** 40 deliveries over several segments; even seqs forwarded ok, every fifth failed, the rest pending. */
async function fill(dir: string, options: { fs?: FaultyFs } = {}): Promise<DeliveryStore> {
  const store = await DeliveryStore.open(dir, { segmentBytes: 700, fs: options.fs });
  for (let i = 1; i <= 40; i++) {
    const e = await store.add(meta(i), Buffer.from(`body ${i} ${'.'.repeat(100)}`));
    const seq = e.summary.seq;
    if (seq % 5 === 0) await store.recordAttempt(seq, attempt(false), { target: TARGET, status: 'failed', attempts: 1, lastStatus: 500 });
    else if (seq % 2 === 0) await store.recordAttempt(seq, attempt(true), { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 });
  }
  return store;
}

/** Everything a client can see of a store, for comparing two opens. */
async function snapshot(store: DeliveryStore) {
  const all = store.list({ limit: 10_000 });
  const bodies: string[] = [];
  for (const d of all) bodies.push((await store.read(d.seq))!.body.toString());
  return {
    all,
    bodies,
    attempts: all.map((d) => store.get(d.seq)!.attempts.length),
    channels: store.channels(),
    pending: store.pending().map((e) => e.summary.seq),
    lastSeq: store.lastSeq,
  };
}

const files = (dir: string, re: RegExp) =>
  readdirSync(dir)
    .filter((f) => re.test(f))
    .sort();
const SEG = /^journal-\d+\.log$/;
const IDX = /^journal-\d+\.idx$/;

describe('relay store: segment index files', () => {
  it('writes an index for each sealed segment; a restart reads those and scans only the current segment', async () => {
    const dir = tempDir();
    const store = await fill(dir);
    const expected = await snapshot(store);
    await store.close();
    const segs = files(dir, SEG);
    assert.ok(segs.length > 3, `segments: ${segs.join(' ')}`);
    // Sealed segments were indexed when sealed, the current one at close.
    assert.deepEqual(
      files(dir, IDX),
      segs.map((s) => s.replace('.log', '.idx')),
    );
    const fs = new FaultyFs();
    // (the index files' path: no index snapshot, which would also read the last record's header)
    const again = await DeliveryStore.open(dir, { segmentBytes: 700, fs, snapshot: false });
    const opened = fs.calls.filter((c) => c.op === 'open' && SEG.test(c.path.split('/').at(-1)!)).map((c) => c.path.split('/').at(-1));
    // No segment is read: the current one is only opened for appending.
    assert.deepEqual(opened, [segs.at(-1)]);
    assert.deepEqual(await snapshot(again), expected);
    await again.close();
  });

  it('rebuilds a missing or damaged index from its segment', async () => {
    const dir = tempDir();
    const store = await fill(dir);
    const expected = await snapshot(store);
    await store.close();
    const idx = files(dir, IDX);
    unlinkSync(join(dir, idx[0]!));
    const bytes = readFileSync(join(dir, idx[1]!));
    bytes[bytes.length - 5]! ^= 0x01;
    writeFileSync(join(dir, idx[1]!), bytes);
    const rebuilt: { segment: number; bytes: number }[] = [];
    const again = await DeliveryStore.open(dir, { segmentBytes: 700, onRebuild: (r) => rebuilt.push(r) });
    assert.deepEqual(await snapshot(again), expected);
    await again.close();
    assert.deepEqual(files(dir, IDX), idx, 'both indexes written again');
    assert.deepEqual(readFileSync(join(dir, idx[1]!)).equals(bytes), false);
    // The slow start is announced once per segment read in full, with its size; the next start has none.
    const segs = files(dir, SEG);
    assert.deepEqual(
      rebuilt,
      [0, 1].map((k) => ({ segment: Number(/\d+/.exec(segs[k]!)![0]), bytes: statSync(join(dir, segs[k]!)).size })),
    );
    const third: unknown[] = [];
    await (await DeliveryStore.open(dir, { segmentBytes: 700, onRebuild: (r) => third.push(r) })).close();
    assert.deepEqual(third, []);
  });

  it('a relay killed between sealing a segment and writing its index loses nothing', async () => {
    const dir = tempDir();
    const fs = new FaultyFs();
    // Every index write dies before its rename, as when the process is killed right there.
    fs.fail('rename', { code: 'EIO' });
    const store = await fill(dir, { fs });
    const expected = await snapshot(store);
    // No close(): the process is gone. A new one opens the same folder.
    await store.release();
    assert.deepEqual(files(dir, IDX), []);
    const again = await DeliveryStore.open(dir, { segmentBytes: 700 });
    // After a crash the numbering goes on above the reserved seq block (never below 40).
    assert.ok(again.lastSeq >= 40);
    assert.deepEqual({ ...(await snapshot(again)), lastSeq: 40 }, expected);
    assert.equal(files(dir, IDX).length, files(dir, SEG).length - 1);
    await again.close();
  });

  it('after a kill, the current segment is read from its last checkpoint plus a scan of the bytes after it', async () => {
    const dir = tempDir();
    const store = await DeliveryStore.open(dir, { checkpointBytes: 3000 });
    for (let i = 1; i <= 12; i++) await store.add(meta(i), Buffer.from(`body ${i} ${'.'.repeat(100)}`));
    await store.recordAttempt(3, attempt(true), { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 });
    await store.add(meta(13), Buffer.from('after the last checkpoint'));
    const expected = await snapshot(store);
    // No close(): killed. The checkpoint covers part of the segment; the rest is scanned.
    await store.release();
    // The header's bytes-covered field (f64 at 16).
    const covered = readFileSync(join(dir, files(dir, IDX)[0]!)).readDoubleLE(16);
    assert.ok(covered > 0 && covered < store.get(13)!.loc.offset, `checkpoint covers ${covered} bytes`);
    const again = await DeliveryStore.open(dir);
    assert.ok(again.lastSeq >= 13);
    assert.deepEqual({ ...(await snapshot(again)), lastSeq: 13 }, expected);
    await again.close();
  });
});

describe('relay store: compact index', () => {
  it('keeps per-channel counters and the pending set right through forwards, prunes and a restart', async () => {
    const dir = tempDir();
    const store = await fill(dir);
    const check = (s: DeliveryStore) => {
      const all = s.list({ limit: 10_000 });
      for (const c of s.channels()) {
        const mine = all.filter((d) => d.channel === c.name);
        assert.equal(c.received, mine.length, c.name);
        assert.equal(c.verified, mine.length);
        assert.equal(c.forwarded, mine.filter((d) => d.forward.every((f) => f.status === 'ok')).length, `${c.name} forwarded`);
        assert.equal(c.failed, mine.filter((d) => d.forward.some((f) => f.status === 'failed')).length, `${c.name} failed`);
        assert.equal(c.pending, mine.filter((d) => d.forward.some((f) => f.status === 'pending')).length, `${c.name} pending`);
      }
      assert.deepEqual(
        s.pending().map((e) => e.summary.seq),
        all
          .filter((d) => d.forward.some((f) => f.status === 'pending'))
          .map((d) => d.seq)
          .reverse(),
      );
    };
    check(store);
    assert.deepEqual(
      store.channels().map((c) => [c.name, c.received, c.forwarded, c.failed, c.pending]),
      [
        ['ci', 13, 5, 2, 6],
        ['default', 27, 11, 6, 10],
      ],
    );
    await store.recordAttempt(1, attempt(true), { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 });
    check(store);
    await store.prune({ keep: 15 });
    check(store);
    assert.equal(
      store.channels().reduce((n, c) => n + c.received, 0),
      15,
    );
    await store.close();
    const again = await DeliveryStore.open(dir, { segmentBytes: 700 });
    check(again);
    assert.equal(again.size, 15);
    await again.close();
  });

  it('a status filter nothing matches answers empty from the counters, and follows them as states change', async () => {
    const store = await fill(tempDir());
    const seqs = (q: Parameters<DeliveryStore['list']>[0]) => store.list(q).map((d) => d.seq);
    assert.deepEqual(seqs({ status: 'rejected' }), []);
    assert.deepEqual(seqs({ status: 'unverified', channel: 'ci' }), []);
    // ci holds seqs 3, 6, …, 39: failed ones are 15 and 30.
    assert.deepEqual(seqs({ status: 'failed', channel: 'ci' }), [30, 15]);
    for (const seq of [15, 30]) await store.recordAttempt(seq, attempt(true), { target: TARGET, status: 'ok', attempts: 2, lastStatus: 200 });
    assert.deepEqual(seqs({ status: 'failed', channel: 'ci' }), []);
    assert.deepEqual(seqs({ status: 'failed', limit: 3 }), [40, 35, 25]);
    await store.recordAttempt(30, attempt(false), { target: TARGET, status: 'failed', attempts: 3, lastStatus: 500 });
    assert.deepEqual(seqs({ status: 'failed', channel: 'ci' }), [30]);
    assert.deepEqual(seqs({ status: 'ok', channel: 'ci' }).slice(0, 2), [36, 24]);
    await store.close();
  });

  it('pages back with before=<seq>, with since, channel and status filters', async () => {
    const store = await fill(tempDir());
    const seqs = (q: Parameters<DeliveryStore['list']>[0]) => store.list(q).map((d) => d.seq);
    assert.deepEqual(seqs({ limit: 5 }), [40, 39, 38, 37, 36]);
    assert.deepEqual(seqs({ limit: 5, before: 36 }), [35, 34, 33, 32, 31]);
    assert.deepEqual(seqs({ limit: 5, before: 3 }), [2, 1]);
    assert.deepEqual(seqs({ limit: 5, before: 1 }), []);
    assert.deepEqual(seqs({ limit: 100, before: 10, since: 6 }), [9, 8, 7]);
    assert.deepEqual(seqs({ limit: 3, before: 30, channel: 'ci' }), [27, 24, 21]);
    assert.deepEqual(seqs({ limit: 3, before: 30, status: 'failed' }), [25, 20, 15]);
    assert.deepEqual(seqs({ limit: 2, status: 'ok' }), [38, 36]);
    assert.deepEqual(seqs({ channel: 'nope' }), []);
    const one = store.list({ limit: 1, before: 12 })[0]!;
    assert.equal(one.event, 'push');
    assert.equal(one.deliveryId, 'id-11');
    assert.equal(one.size, Buffer.byteLength(`body 11 ${'.'.repeat(100)}`));
    await store.close();
  });

  it('GET /api/deliveries pages back with before=<seq>', async () => {
    const dir = tempDir();
    await (await fill(dir)).close();
    const relay = await startRelay({ port: 0, dataDir: dir, secrets: ['s'], segmentBytes: 700 });
    try {
      const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
      const page1 = (await api.listDeliveries({ limit: 10 })).deliveries.map((d) => d.seq);
      const page2 = (await api.listDeliveries({ limit: 10, before: page1.at(-1) })).deliveries.map((d) => d.seq);
      assert.deepEqual(page2, [30, 29, 28, 27, 26, 25, 24, 23, 22, 21]);
    } finally {
      await relay.close();
    }
  });

  it('rows and attempts stay right when a prune compacts the columns and the attempt arena', async () => {
    const store = await DeliveryStore.open(tempDir());
    const n = 6000;
    for (let done = 0; done < n; done += 500) {
      const added = await Promise.all(Array.from({ length: 500 }, (_, k) => store.add(meta(done + k + 1), Buffer.from(`b${done + k + 1}`))));
      await Promise.all(
        added.map((e) =>
          store.recordAttempt(
            e.summary.seq,
            { ...attempt(false), durationMs: e.summary.seq, error: `e${e.summary.seq}` },
            { target: TARGET, status: 'pending', attempts: 1, lastStatus: 500 },
            { lazy: true },
          ),
        ),
      );
    }
    await store.prune({ keep: 100 });
    for (const seq of [n - 99, n - 50, n]) {
      const e = store.get(seq)!;
      assert.deepEqual(
        e.attempts.map((a) => [a.durationMs, a.error, a.status]),
        [[seq, `e${seq}`, 500]],
        `seq ${seq}`,
      );
      assert.equal(e.summary.deliveryId, `id-${seq}`);
      assert.equal((await store.read(seq))!.body.toString(), `b${seq}`);
    }
    await store.recordAttempt(n, attempt(true), { target: TARGET, status: 'ok', attempts: 2, lastStatus: 200 });
    assert.deepEqual(
      store.get(n)!.attempts.map((a) => a.ok),
      [false, true],
    );
    assert.equal(store.get(n)!.summary.forward[0]!.status, 'ok');
    assert.equal(store.pending().length, 99);
    assert.equal(store.get(n - 100), undefined);
    await store.close();
  });
});
