// Benchmark: backlog drain (issue 13). 10,000 deliveries reach the relay while the app answers
// 503 (each gets its first attempt and then waits a minute on the service's schedule); then the
// app comes back and we time how fast the backlog arrives:
//   (a) live: the app answers 2xx to the next fresh delivery, which releases the backlog;
//   (b) restart: the relay is killed (-9) while the app is down and started again with the app up.
// Prints deliveries/s for each and writes bench/results/relay-drain.json. Not a test.
// Then (issue 43, ./appBack.ts) the app's port is closed instead of answering 503: the time from
// its return to the last held delivery, for the relay's --forward (running, and killed -9 and
// started again meanwhile) beside `service-hooks forward`, in one run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { Signal } from '../test/support/until';
import { cpuMs } from './procStats';
import { measureAppBack } from './appBack';
import { bundleCli, listenLocal, RELAY_READY, ROOT, spawnListening, type Child } from './relayChild';

const N = Number(process.env.BENCH_N ?? 10_000);
const GOAL = 2000;
/** Deliveries held while the app's port is closed, and rounds of the three paths (issue 43's case). */
const BACK_N = Number(process.env.BENCH_BACK_N ?? 50);
const BACK_ROUNDS = Number(process.env.BENCH_BACK_ROUNDS ?? 3);
const BACK_GOAL_MS = 2000;

// ---- the app: 503 while down; counts the distinct deliveries it answered 200 ----
let up = false;
const refused = new Set<string>();
const accepted = new Set<string>();
/** Distinct deliveries per label ('a-1' → 'a') in each set, kept as they arrive (no rescans). */
const counts = new Map<Set<string>, Map<string, number>>([
  [refused, new Map()],
  [accepted, new Map()],
]);
function note(set: Set<string>, id: string): void {
  if (set.has(id)) return;
  set.add(id);
  const label = id.slice(0, id.indexOf('-'));
  const m = counts.get(set)!;
  m.set(label, (m.get(label) ?? 0) + 1);
}
function countIn(set: Set<string>, label: string): number {
  return counts.get(set)!.get(label) ?? 0;
}
const answered = new Signal();
const app = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['x-service-delivery']);
    note(up ? accepted : refused, id);
    res.writeHead(up ? 200 : 503, { 'content-length': '2' }).end('ok');
    answered.wake();
  });
});

const until = (pred: () => boolean): Promise<unknown> => answered.until(pred, 'the app', Infinity);

function body(id: string): Buffer {
  return Buffer.from(JSON.stringify({ action: 'opened', id, pad: 'x'.repeat(960) }));
}

async function post(url: string, ids: string[], agent: Agent, concurrency = 32): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-service-event': 'push', 'x-service-delivery': id },
        body: body(id),
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** BENCH_RELAY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the relay children. */
const NODE_ARGS = (process.env.BENCH_RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean);

async function relay(cli: string, data: string, appUrl: string): Promise<Child> {
  return spawnListening(NODE_ARGS, cli, ['relay', '--port', '0', '--ready', 'json', '--data', data, '--forward', appUrl], RELAY_READY);
}

/** Fills a backlog of N deliveries whose first attempt got 503. */
async function backlog(r: Child, label: string, agent: Agent): Promise<string[]> {
  up = false;
  const ids = Array.from({ length: N }, (_, i) => `${label}-${i}`);
  await post(`http://127.0.0.1:${r.port}/hooks/default`, ids, agent);
  await until(() => countIn(refused, label) >= N);
  return ids;
}

async function main(): Promise<void> {
  const appUrl = await listenLocal(app, '/webhook');
  const work = mkdtempSync(join(tmpdir(), 'sh-bench-drain-'));
  const cli = await bundleCli(work);
  const agent = new Agent({ connections: 32, keepAliveTimeout: 30_000 });
  const header = `nproc ${availableParallelism()} (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}, ${N} pending deliveries of ~1 KB`;
  console.log(header);

  // (a) live: the next fresh delivery is answered 2xx and releases the backlog.
  const dataA = join(work, 'a');
  const a = await relay(cli, dataA, appUrl);
  const idsA = await backlog(a, 'a', agent);
  up = true;
  const cpuA0 = cpuMs(a.child.pid!);
  const t0 = performance.now();
  await post(`http://127.0.0.1:${a.port}/hooks/default`, ['a-fresh'], agent, 1);
  await until(() => accepted.has('a-fresh') && countIn(accepted, 'a') >= N);
  void idsA;
  const liveS = (performance.now() - t0) / 1000;
  const liveCpuUs = ((cpuMs(a.child.pid!) - cpuA0) * 1000) / N;
  a.child.kill('SIGTERM');
  await once(a.child, 'exit');

  // (b) restart: kill -9 with the app down, start again with the app up.
  const dataB = join(work, 'b');
  const b = await relay(cli, dataB, appUrl);
  const idsB = await backlog(b, 'b', agent);
  b.child.kill('SIGKILL');
  await once(b.child, 'exit');
  up = true;
  const t1 = performance.now();
  const b2 = await relay(cli, dataB, appUrl);
  const readyS = (performance.now() - t1) / 1000;
  const cpuB0 = cpuMs(b2.child.pid!);
  await until(() => countIn(accepted, 'b') >= N);
  const restartCpuUs = ((cpuMs(b2.child.pid!) - cpuB0) * 1000) / N;
  void idsB;
  const restartS = (performance.now() - t1) / 1000;
  b2.child.kill('SIGTERM');
  await once(b2.child, 'exit');

  const back = await measureAppBack(cli, BACK_N, BACK_ROUNDS);
  const live = N / liveS;
  const restart = N / restartS;
  const lines = [
    `live (app answers 2xx again): ${N} drained in ${liveS.toFixed(2)} s = ${live.toFixed(0)} deliveries/s; relay CPU ${liveCpuUs.toFixed(0)} µs per delivery (alone on a core: ~${(1e6 / liveCpuUs).toFixed(0)}/s)`,
    `restart (kill -9, app up): listening after ${readyS.toFixed(2)} s; ${N} drained ${restartS.toFixed(2)} s after the spawn = ${restart.toFixed(0)} deliveries/s (incl. start-up); ${(N / (restartS - readyS)).toFixed(0)}/s after listening; relay CPU ${restartCpuUs.toFixed(0)} µs per delivery after listening`,
    `load average while measuring: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (figures on a busy machine understate the rate)`,
    `goal >= ${GOAL}/s: live ${live >= GOAL ? 'met' : 'NOT met'}, restart ${restart >= GOAL ? 'met' : 'NOT met'}`,
    `app back (${BACK_N} held while its port was closed; median of ${BACK_ROUNDS}), from its return to the last held delivery: relay --forward ${back.relayLiveMs.toFixed(0)} ms, after a kill -9 ${back.relayRestartMs.toFixed(0)} ms, forward ${back.forwardMs.toFixed(0)} ms; relay / forward ${(back.relayLiveMs / back.forwardMs).toFixed(2)}x`,
    `goal <= ${BACK_GOAL_MS} ms: relay ${back.relayLiveMs <= BACK_GOAL_MS ? 'met' : 'NOT met'}, after kill -9 ${back.relayRestartMs <= BACK_GOAL_MS ? 'met' : 'NOT met'}`,
  ];
  for (const l of lines) console.log(l);
  await agent.close();
  app.close();
  app.closeAllConnections();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const json = {
    when: new Date().toISOString(),
    node: process.version,
    nproc: availableParallelism(),
    pending: N,
    live: { seconds: liveS, perSecond: live, relayCpuUsPerDelivery: liveCpuUs },
    restart: { listeningAfterS: readyS, seconds: restartS, perSecond: restart, relayCpuUsPerDelivery: restartCpuUs },
    loadAverage: loadavg(),
    goalPerSecond: GOAL,
    appBack: { ...back, goalMs: BACK_GOAL_MS },
  };
  writeFileSync(join(ROOT, 'bench/results/relay-drain.json'), JSON.stringify(json, null, 2) + '\n');
  console.log('wrote bench/results/relay-drain.json');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
