// Benchmark: the in-memory delivery index's memory per row. One child process per size inserts N
// deliveries into a CompactIndex as a restart does (consecutive seqs, ~1 KB records in 64 MB
// segments, a UUID delivery id as UTF-8 bytes, one target; one attempt each: 95% ok at once, 4% failed then ok, 1% still pending)
// and prints RSS, V8 heap and array buffers after a GC; the slope between the sizes is the bytes
// per indexed delivery (issue 40 asks for ≤ 48 end to end). Sizes from BENCH_SIZES (default
// 1000000,4000000). BENCH_INDEX: another compactIndex.ts to measure (another checkout's, to
// compare). A benchmark, not a test.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { CompactIndex } from '../relay/server/deliveryIndex/compactIndex';

interface Mem {
  rows: number;
  rss: number;
  heap: number;
  heapTotal: number;
  arrayBuffers: number;
  external: number;
  ms: number;
  cpuMs: number;
}

const TARGETS = ['http://127.0.0.1:3000/a', 'http://127.0.0.1:3000/b', 'http://127.0.0.1:3001/hook'];
const EVENTS = ['push', 'pull_request', 'issues', 'ping', 'release'];

/** After a GC, and a pause for the array buffers it freed to be given back (a background task). */
async function measure(): Promise<Mem> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let k = 0; k < 3; k++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const m = process.memoryUsage();
  return { rows: 0, rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, arrayBuffers: m.arrayBuffers, external: m.external, ms: 0, cpuMs: 0 };
}

async function fill(n: number, Index: new () => CompactIndex): Promise<Mem> {
  const before = await measure();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const ix = new Index();
  ix.deferPendingSet();
  const base = Date.UTC(2026, 0, 1);
  let offset = 0;
  for (let seq = 1; seq <= n; seq++) {
    const segment = Math.floor(seq / 60_000) + 1;
    if (seq % 60_000 === 0) offset = 0;
    const size = 900 + (seq % 250);
    const length = size + 300 + (seq % 7);
    const receivedMs = base + seq * 37 + (seq % 11);
    const target = TARGETS[seq % TARGETS.length]!;
    const rejected = seq % 50 === 0;
    ix.insert(
      {
        seq,
        receivedMs,
        channel: `ch-${seq % TARGETS.length}`,
        verification: rejected ? 'rejected' : 'verified',
        event: EVENTS[seq % EVENTS.length],
        deliveryIdUtf8: Buffer.from(randomUUID()), // as a restart feeds them (from the segment index files)
        metaLength: 300,
        targets: rejected ? [] : [target],
      },
      size,
      { segment, offset, length },
    );
    offset += length + 60;
    if (rejected) continue;
    const at = receivedMs + 3 + (seq % 40);
    const roll = seq % 100;
    const durationMs = Math.round((1 + (seq % 900) / 7) * 1000) / 1000;
    if (roll < 95) {
      ix.applyAttempt(seq, { target, atMs: at, status: 200, ok: true, durationMs }, { target, status: 'ok', attempts: 1, lastStatus: 200 });
    } else {
      const failed = { target, atMs: at, status: 502, ok: false, durationMs, error: roll === 99 ? 'connect ECONNREFUSED' : undefined };
      const next = at + 60_000;
      ix.applyAttempt(seq, failed, { target, status: 'pending', attempts: 1, lastStatus: 502, nextAttemptMs: next });
      if (roll < 99) ix.applyAttempt(seq, { target, atMs: next, status: 200, ok: true, durationMs }, { target, status: 'ok', attempts: 2, lastStatus: 200 });
    }
  }
  ix.buildPendingSet();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const after = await measure();
  if (ix.size !== n) throw new Error(`indexed ${ix.size} of ${n}`);
  return {
    rows: n,
    rss: after.rss - before.rss,
    heap: after.heap - before.heap,
    heapTotal: after.heapTotal - before.heapTotal,
    arrayBuffers: after.arrayBuffers - before.arrayBuffers,
    external: after.external - before.external,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

async function main(): Promise<void> {
  if (process.argv[2]) {
    const mod = (await import(process.env.BENCH_INDEX ?? '../relay/server/deliveryIndex/compactIndex')) as { CompactIndex: new () => CompactIndex };
    process.stdout.write(JSON.stringify(await fill(Number(process.argv[2]), mod.CompactIndex)));
    return;
  }
  const sizes = (process.env.BENCH_SIZES ?? '1000000,4000000').split(',').map(Number);
  const runs = sizes.map(
    (n) =>
      JSON.parse(
        execFileSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', __filename, String(n)], { encoding: 'utf8' }),
      ) as Mem,
  );
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  for (const r of runs)
    console.log(
      `${r.rows} rows in ${(r.ms / 1000).toFixed(1)} s (CPU ${(r.cpuMs / 1000).toFixed(1)} s): RSS +${mb(r.rss)} (${(r.rss / r.rows).toFixed(1)} B/row), heap +${mb(r.heap)}, arrayBuffers +${mb(r.arrayBuffers)}`,
    );
  const [a, b] = [runs[0]!, runs[runs.length - 1]!];
  const per = (k: 'rss' | 'heap' | 'heapTotal' | 'arrayBuffers') => ((b[k] - a[k]) / (b.rows - a.rows)).toFixed(1);
  console.log(
    `slope ${a.rows}..${b.rows}: RSS ${per('rss')} B/row (goal ≤ 48), heap ${per('heap')} (committed ${per('heapTotal')}), arrayBuffers ${per('arrayBuffers')}`,
  );
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

void main();
