// Ten million deliveries (issue 40, goal 3): a journal of 1 KB deliveries written offline with
// the relay's own journal writer (./journalWriter.ts: the files a relay would have written, in
// big group commits), first to 1,000,000, then grown to 10,000,000 (about 19 GB). All but the
// newest 10,000 of each step were forwarded (one attempt each); those are pending to a local app
// that answers 503. The real relay process on it, restarted as bench:million does (kill -9, then
// spawn on the same journal, timed from the spawn: ./relayRestart.ts):
//   - at 1M: one restart; its RSS one second after the API answered;
//   - at 10M: three restarts (medians): first /healthz 200, first delivery answered 200, first
//     /api/status 200; the RSS one second after the API answered; then, once the forward
//     attempts that follow the restart stopped, /api/status and the newest page of 50 (p50);
//   - memory per delivery: the RSS slope from 1M to 10M, (RSS 10M − RSS 1M) / the deliveries
//     between (what each indexed delivery costs, the fixed part of the process left out).
// Goals: the API ≤ 2 s after the spawn at 10M, ≤ 48 B per delivery, status and newest page ≤ 2 ms p50.
//
//   npm run bench:ten-million [-- --n 10000000 --first 1000000 --body 1024 --pending 10000]
// It checks the free space of the temp folder first (a delivery of 1 KB takes about 1.9 KB of
// journal): when N does not fit (with 10 % to spare) it says so and runs the largest N that does.
// What it wrote is removed at the end, on an error or Ctrl-C too. Writes
// bench/results/relay-ten-million.json.
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { freePort } from '../test/support/freePort';
import { ForwardApp } from './forwardApp';
import { growJournal } from './journalWriter';
import { loadAverage } from './procStats';
import { bundleCli, ROOT } from './relayChild';
import { kill9 } from './relayProbe';
import {
  bytesPerDelivery,
  emptyRelayMemory,
  firstStart,
  printRestarts,
  queries,
  relayMemory,
  restarts,
  type RelayMemory,
  type RelaySetup,
} from './relayRestart';
import { cleanUp, fitting, scratchDir } from './scratchSpace';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: process.env.BENCH_N ?? '10000000' },
    first: { type: 'string', default: '1000000' },
    body: { type: 'string', default: '1024' },
    pending: { type: 'string', default: '10000' },
  },
});
const BODY = Number(values.body);
const PENDING = Number(values.pending);
/** Journal bytes per delivery beyond its body: record headers, meta, its attempt record, index entries (measured: about 820). */
const OVERHEAD = 900;

const app = new ForwardApp();
const mb = (dir: string) => Number(execSync(`du -sm ${dir}`).toString().split(/\s+/)[0]);
const count = (n: number) => n.toLocaleString('en');

/** Grows the journal to `upTo` deliveries, saying how long it took. */
async function grow(dir: string, upTo: number, target: string): Promise<{ seconds: number; written: number; journalMb: number }> {
  const g = await growJournal(dir, {
    upTo,
    bodyBytes: BODY,
    pending: PENDING,
    target,
    progress: (done) => process.stdout.write(`  written ${count(done)}\r`),
  });
  const journalMb = mb(dir);
  console.log(
    `\r  journal grown to ${count(upTo)} deliveries (${journalMb} MB) in ${g.seconds.toFixed(0)} s, with the relay's journal writer; load average ${loadAverage()}`,
  );
  return { ...g, journalMb };
}

interface IndexMemory {
  deliveries: number;
  heapUsedMb: number;
  arrayBuffersMb: number;
  rssMb: number;
}

/** The index of the journal in `dir` opened in a process of its own (./indexMemoryChild.ts): its JS heap and array buffers after a full GC. */
function indexMemory(dir: string): IndexMemory {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'indexMemoryChild.ts'), dir], { encoding: 'utf8', cwd: ROOT });
  return JSON.parse(out) as IndexMemory;
}

/** The relay's memory one second after its API answered (call it then), and the forward attempts that follow a restart, once they stopped. */
async function settledMemory(child: Parameters<typeof relayMemory>[0]): Promise<{ memory: RelayMemory; wave: { attempts: number; seconds: number } }> {
  await new Promise((r) => setTimeout(r, 1000));
  const memory = relayMemory(child);
  return { memory, wave: await app.settled() };
}

async function measure(cli: string, n: number, first: number, appUrl: string) {
  const dir = scratchDir('sh-relay-ten-million-');
  const agent = new Agent({ connections: 1, pipelining: 0 });
  const setup: RelaySetup = { cli, dir, port: await freePort(), appUrl, agent };
  const empty = await emptyRelayMemory(setup, scratchDir('sh-relay-ten-million-empty-'));
  console.log(`an empty relay: RSS ${empty.rssMb.toFixed(0)} MB`);

  const small = await grow(dir, first, appUrl);
  const upgrade1 = await firstStart(setup);
  console.log(
    `at ${count(first)}, the first start (no index snapshot yet): API ${(upgrade1.apiMs / 1000).toFixed(2)} s, its snapshot written ${upgrade1.snapshotS.toFixed(1)} s after the spawn`,
  );
  const r1 = await restarts(setup, upgrade1.child, 1);
  const at1 = await settledMemory(r1.child);
  const q1 = await queries(setup, first);
  console.log(
    `at ${count(first)}: API ${(r1.apiMs / 1000).toFixed(2)} s after the spawn, RSS ${at1.memory.rssMb.toFixed(0)} MB (anonymous ${at1.memory.anonMb.toFixed(0)} MB, peak ${at1.memory.peakMb.toFixed(0)} MB), status p50 ${q1.statusP50Ms.toFixed(2)} ms, newest page ${q1.pageNewest50P50Ms.toFixed(2)} ms`,
  );
  await kill9(r1.child);
  const index1 = indexMemory(dir);

  const big = await grow(dir, n, appUrl);
  const held = small.written + big.written;
  const upgrade10 = await firstStart(setup);
  console.log(
    `at ${count(n)}, the first start (no index snapshot yet): API ${(upgrade10.apiMs / 1000).toFixed(2)} s, its snapshot written ${upgrade10.snapshotS.toFixed(1)} s after the spawn`,
  );
  const r10 = await restarts(setup, upgrade10.child, 3);
  const { child, ...restart } = r10;
  const at10 = await settledMemory(child);
  const q10 = await queries(setup, n);
  const loadAtQueries = loadAverage();
  await kill9(child);
  await agent.close();
  const index10 = indexMemory(dir);
  const slope = (k: 'heapUsedMb' | 'arrayBuffersMb' | 'rssMb') => bytesPerDelivery(index1[k], index10[k], index1.deliveries, index10.deliveries);
  return {
    deliveries: held,
    first: small.written,
    journalMb: big.journalMb,
    buildS: { first: small.seconds, rest: big.seconds },
    rssEmpty: empty,
    at1M: { deliveries: small.written, journalMb: small.journalMb, apiMs: r1.apiMs, acceptMs: r1.acceptMs, healthzMs: r1.healthzMs, ...at1.memory, ...q1 },
    firstStart: { at1M: { apiMs: upgrade1.apiMs, snapshotS: upgrade1.snapshotS }, at10M: { apiMs: upgrade10.apiMs, snapshotS: upgrade10.snapshotS } },
    ...restart,
    rssAfterRestartMb: at10.memory.rssMb,
    anonAfterRestartMb: at10.memory.anonMb,
    peakMb: at10.memory.peakMb,
    bytesPerDelivery: bytesPerDelivery(at1.memory.rssMb, at10.memory.rssMb, small.written, held),
    anonBytesPerDelivery: bytesPerDelivery(at1.memory.anonMb, at10.memory.anonMb, small.written, held),
    /** The index alone, in a process of its own after a full GC: bytes per delivery of RSS, on the JS heap and in array buffers (as allocated). */
    indexAlone: {
      at1M: index1,
      at10M: index10,
      rssBytesPerDelivery: slope('rssMb'),
      heapBytesPerDelivery: slope('heapUsedMb'),
      arrayBufferBytesPerDelivery: slope('arrayBuffersMb'),
    },
    waveAfterRestart: at10.wave,
    ...q10,
    loadAtQueries,
  };
}

async function main(): Promise<void> {
  console.log(`relay-ten-million: nproc ${availableParallelism()}, node ${process.version}, body ${BODY} B, ${PENDING} pending, load average ${loadAverage()}`);
  const n = fitting(Number(values.n), BODY + OVERHEAD, Number(values.first) * 2);
  const first = Math.min(Number(values.first), Math.floor(n / 10));
  const appUrl = await app.listen();
  const cli = await bundleCli(scratchDir('sh-relay-ten-million-cli-'));
  let r: Awaited<ReturnType<typeof measure>>;
  try {
    r = await measure(cli, n, first, appUrl);
  } finally {
    cleanUp();
    app.close();
  }
  const pages = Math.max(r.statusP50Ms, r.pageNewest50P50Ms);
  const goals = {
    apiAtMost2s: r.apiMs <= 2000,
    bytesPerDeliveryAtMost48: r.bytesPerDelivery <= 48,
    statusAndNewestPageAtMost2MsP50: pages <= 2,
  };
  const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`\nat ${count(r.deliveries)} deliveries of ${BODY} B (${r.journalMb} MB of journal):`);
  printRestarts(r, { apiMs: 2000 });
  console.log(
    `  RSS 1 s after the API answered         ${r.rssAfterRestartMb.toFixed(0)} MB (anonymous ${r.anonAfterRestartMb.toFixed(0)} MB, peak ${r.peakMb.toFixed(0)} MB) — goal: shown`,
  );
  console.log(
    `  memory per delivery                    ${r.bytesPerDelivery.toFixed(1)} B: (RSS ${r.rssAfterRestartMb.toFixed(0)} MB − RSS at ${count(r.first)} ${r.at1M.rssMb.toFixed(0)} MB) / ${count(r.deliveries - r.first)} (anonymous memory alone ${r.anonBytesPerDelivery.toFixed(1)} B) — goal ≤ 48 B: ${met(goals.bytesPerDeliveryAtMost48)}`,
  );
  const ia = r.indexAlone;
  console.log(
    `  the index alone (the store opened in a process of its own, after a full GC), per delivery: RSS ${ia.rssBytesPerDelivery.toFixed(1)} B; JS heap ${ia.heapBytesPerDelivery.toFixed(1)} B, array buffers as allocated (columns at their doubled capacity, delivery ids, attempts) ${ia.arrayBufferBytesPerDelivery.toFixed(1)} B (shown)`,
  );
  console.log(
    `  p50 once the ${count(r.waveAfterRestart.attempts)} forward attempts after the restart stopped: /api/status ${r.statusP50Ms.toFixed(2)} ms, newest 50 ${r.pageNewest50P50Ms.toFixed(2)} ms — goal ≤ 2 ms: ${met(goals.statusAndNewestPageAtMost2MsP50)}; ` +
      `a page 10,000+ back ${r.pageOlderP50Ms.toFixed(2)} ms, a filter nothing matches ${r.pageNoMatchP50Ms.toFixed(2)} ms (the counters: ${count(r.counts.failed)} failed, ${count(r.counts.pending)} pending of ${count(r.counts.received)}), /healthz ${r.healthzP50Ms.toFixed(2)} ms (shown; load average ${r.loadAtQueries})`,
  );
  console.log(
    `  API ≤ 2 s at ${count(r.deliveries)}: ${met(goals.apiAtMost2s)}; journal written in ${r.buildS.first.toFixed(0)} s + ${r.buildS.rest.toFixed(0)} s`,
  );
  console.log('goals:', JSON.stringify(goals), `load average ${loadAverage()}`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/relay-ten-million.json'),
    JSON.stringify(
      { date: new Date().toISOString(), nproc: availableParallelism(), node: process.version, bodyBytes: BODY, ...r, goals, loadAtEnd: loadavg() },
      null,
      2,
    ) + '\n',
  );
  console.log('wrote bench/results/relay-ten-million.json');
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
