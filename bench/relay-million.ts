// A relay with a month of history (issue 24): a journal of a million ~10 KB deliveries (about
// 10 GB), written through the store by this bench and deleted at the end. All but the newest
// 10,000 were forwarded (one attempt each); those 10,000 are pending to a local app that answers
// 503. Then the real relay process on it:
//   - restart: kill -9, spawn, then from the spawn (median of 3): first /healthz 200 (listening),
//     first delivery answered 200 (taken while the index loads, issue 40), first /api/status 200
//     (the index built), /readyz 200, its CPU time by then; RSS one second after the API answered;
//   - GET /api/status, a page of 50 newest, a page 10,000+ back, a filter nothing matches (p50
//     from a keep-alive client on loopback, so the HTTP round trip is in: /healthz shows it), once
//     the forward attempts that follow the restart have stopped (the pending whose 503s the
//     kill -9 lost are attempted again at start: a wave of up to 10,000 attempts);
//   - the same while the relay retries every pending forward (POST /api/forward/retry): the
//     pages during a backlog drain;
//   - drain: the app answers 200 again, kill -9, spawn; the 10,000 pending arrive, timed from the spawn;
//   - the restarts above read the index snapshot the build's clean stop wrote (issue 40); a last
//     one without it (moved away) shows the index rebuilt from the segments' index files.
// Goals: a delivery taken ≤ 0.5 s and the API ≤ 1 s after the spawn, RSS ≤ 200 MB, status and pages ≤ 2 ms p50, drain ≥ 2,000/s.
//
//   npm run bench:million [-- --n 1000000 --body 10240 --pending 10000]
// It checks the free space of the temp folder first: when N does not fit (with 10 % to spare) it
// says so and runs the largest N that does. Writes bench/results/relay-million.json.
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { DeliveryStore } from '../relay/server/store/store';
import { SNAPSHOT_FILE } from '../relay/server/journal/snapshotFile';
import { cpuMs, memKb } from './procStats';
import { freePort } from '../test/support/freePort';
import { deliveryHeaders, get, healthy, kill9, p50, ready } from './relayProbe';
import { bundleCli, ROOT } from './relayChild';
import { tokenFilePath } from '../src/core/relay/ready';
import { sign } from '../src/core/signing';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: process.env.BENCH_N ?? '1000000' },
    body: { type: 'string', default: '10240' },
    pending: { type: 'string', default: '10000' },
  },
});
const BODY = Number(values.body);
const PENDING = Number(values.pending);
/** Journal bytes per delivery beyond its body: record headers, meta, its attempt record, index entries. */
const OVERHEAD = 600;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** N as asked, or the largest that fits in the temp folder's free space with 10 % to spare. */
function fitting(asked: number): number {
  const fs = statfsSync(tmpdir());
  const free = fs.bavail * fs.bsize;
  const fits = Math.floor((free * 0.9) / (BODY + OVERHEAD));
  const need = asked * (BODY + OVERHEAD);
  console.log(`free in ${tmpdir()}: ${(free / 1e9).toFixed(1)} GB; ${asked.toLocaleString('en')} deliveries need about ${(need / 1e9).toFixed(1)} GB`);
  if (fits >= asked) return asked;
  console.log(
    `NOT ENOUGH DISK for ${asked.toLocaleString('en')} deliveries: running the largest that fits, ${fits.toLocaleString('en')} (free space in ${tmpdir()} or pass --n)`,
  );
  if (fits < PENDING * 2) throw new Error(`only ${fits} deliveries fit in ${tmpdir()}: free some space`);
  return fits;
}

// ---- the app: 503 while down; counts the distinct deliveries it answered 200 ----
let up = false;
const accepted = new Set<string>();
/** Forward attempts the app answered, and when the last one came. */
let attempts = 0;
let lastAttemptAt = 0;
let waiter: { want: number; resolve: () => void } | undefined;
const app = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    attempts++;
    lastAttemptAt = performance.now();
    if (up) accepted.add(String(req.headers['x-service-delivery']));
    res.writeHead(up ? 200 : 503, { 'content-length': '2' }).end('ok');
    if (waiter && accepted.size >= waiter.want) waiter.resolve();
  });
});
const untilAccepted = (want: number) => new Promise<void>((r) => (accepted.size >= want ? r() : (waiter = { want, resolve: r })));

/** The index snapshot the build's clean stop wrote (issue 40): its size, the event loop's time copying the state, the write's time. */
let snapshotWritten: { bytes: number; copyMs: number; writeMs: number } | undefined;

/** Writes `n` deliveries of BODY bytes; all but the newest PENDING with one successful attempt. */
async function build(dir: string, n: number, target: string): Promise<number> {
  const store = await DeliveryStore.open(dir, { segmentBytes: 64 * 1024 * 1024, snapshot: { onWritten: (w) => (snapshotWritten = w) } });
  const body = Buffer.alloc(BODY, '{"action":"opened","padding":"'.padEnd(64, 'x'));
  const started = performance.now();
  const BATCH = 256;
  let attempts: Promise<void>[] = [];
  for (let done = 0; done < n; done += BATCH) {
    const adds = [];
    for (let i = done; i < Math.min(n, done + BATCH); i++) {
      const headers = deliveryHeaders(i, BODY);
      adds.push(store.add({ channel: i % 10 ? 'default' : 'ci', verification: 'verified', headers, targets: [target] }, body));
    }
    const entries = await Promise.all(adds);
    await Promise.all(attempts); // the previous batch's attempts rode on this batch's sync
    attempts = entries
      .filter((e) => e.seq <= n - PENDING)
      .map((e) =>
        store.recordAttempt(
          e.seq,
          { target, at: new Date().toISOString(), status: 200, ok: true, durationMs: 2 },
          { target, status: 'ok', lastStatus: 200, attempts: 1 },
          { lazy: true },
        ),
      );
    if (done % 100_000 < BATCH) process.stdout.write(`  built ${done.toLocaleString('en')} (${((performance.now() - started) / 1000).toFixed(0)} s)\r`);
  }
  await Promise.all(attempts);
  await store.close();
  return (performance.now() - started) / 1000;
}

const SECRET = 'bench-secret-0123456789';

/** Posts one signed delivery; whether the relay answered 200 (it takes deliveries while its index loads). */
async function accepts(url: string, agent: Agent, i: number): Promise<boolean> {
  const body = `{"restart":${i}}`;
  try {
    const res = await request(`${url}/hooks/default`, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': sign(SECRET, body) },
    });
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

/** Whether GET /api/status answers 200 (the index built). */
async function apiAnswers(url: string, dir: string, agent: Agent): Promise<boolean> {
  try {
    await get(`${url}/api/status`, readFileSync(tokenFilePath(dir), 'utf8').trim(), agent);
    return true;
  } catch {
    return false;
  }
}

let posted = 0;

/**
 * Spawns the relay; resolves once /readyz answers 200 (the journal loaded), with when /healthz
 * first answered 200 (listening), when a delivery was first answered 200 (taken while the index
 * loads), and when GET /api/status first answered 200 (the index built), each from the spawn.
 * Polled every 2 ms: a bench, not a test.
 */
async function start(
  cli: string,
  dir: string,
  port: number,
  appUrl: string,
  agent: Agent,
): Promise<{ child: ChildProcess; ms: number; acceptMs: number; apiMs: number; readyMs: number; cpuMs: number; t0: number }> {
  const t0 = performance.now();
  // --keep: the default retention (100,000) would prune the journal to a tenth at the first start.
  const args = ['relay', '--port', String(port), '--data', dir, '--secret', SECRET, '--forward', appUrl, '--keep', '100000000'];
  const child = spawn(process.execPath, [cli, ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  let ms: number | undefined;
  let acceptMs: number | undefined;
  let apiMs: number | undefined;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`relay exited with ${child.exitCode}`);
    if (ms === undefined && (await healthy(url, agent))) ms = performance.now() - t0;
    if (ms !== undefined && acceptMs === undefined && (await accepts(url, agent, posted++))) acceptMs = performance.now() - t0;
    if (acceptMs !== undefined && apiMs === undefined && (await apiAnswers(url, dir, agent))) apiMs = performance.now() - t0;
    if (ms !== undefined && acceptMs !== undefined && apiMs !== undefined && (await ready(url, agent)))
      return { child, ms, acceptMs, apiMs, readyMs: performance.now() - t0, cpuMs: cpuMs(child.pid!), t0 };
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Resolves once no forward attempt has reached the app for QUIET_MS; says how many came meanwhile. */
const QUIET_MS = 500;
async function attemptsSettled(): Promise<{ attempts: number; seconds: number }> {
  const [t0, n0] = [performance.now(), attempts];
  while (performance.now() - Math.max(lastAttemptAt, t0) < QUIET_MS) await new Promise((r) => setTimeout(r, 50));
  return { attempts: attempts - n0, seconds: (performance.now() - t0) / 1000 };
}

/** The p50 of `times` GETs of `path` on the relay at `base`, one after another. */
function p50Get(base: string, path: string, token: string, agent: Agent, times: number): Promise<number> {
  return p50(times, async () => void (await get(`${base}${path}`, token, agent)));
}

/** The latencies of the status and list requests on a started relay, with nothing else going on. */
async function queries(base: string, token: string, agent: Agent, n: number): Promise<Record<string, number>> {
  const status = (await get(`${base}/api/status`, token, agent)) as { lastSeq: number };
  const before = Math.max(1, status.lastSeq - Math.min(10_000 + Math.floor(n / 4), n - 100));
  return {
    healthzP50Ms: await p50Get(base, '/healthz', token, agent, 500),
    statusP50Ms: await p50Get(base, '/api/status', token, agent, 500),
    pageNewest50P50Ms: await p50Get(base, '/api/deliveries?limit=50', token, agent, 200),
    pageOlderP50Ms: await p50Get(base, `/api/deliveries?limit=50&before=${before}`, token, agent, 200),
    pageNoMatchP50Ms: await p50Get(base, '/api/deliveries?limit=50&status=failed', token, agent, 50),
  };
}

/** The same requests while the relay retries every pending forward at once (the app answers 503). */
async function queriesDuringDrain(base: string, token: string, agent: Agent): Promise<Record<string, number>> {
  const res = await request(`${base}/api/forward/retry`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const { queued } = (await res.body.json()) as { queued: number };
  const n0 = attempts;
  const r = {
    queued,
    healthzP50Ms: await p50Get(base, '/healthz', token, agent, 100),
    statusP50Ms: await p50Get(base, '/api/status', token, agent, 100),
    pageNewest50P50Ms: await p50Get(base, '/api/deliveries?limit=50', token, agent, 100),
  };
  return { ...r, attemptsWhileMeasured: attempts - n0 };
}

async function measure(cli: string, n: number, appUrl: string): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'sh-relay-million-'));
  try {
    const buildS = await build(dir, n, appUrl);
    const journalMb = Number(execSync(`du -sm ${dir}`).toString().split(/\s+/)[0]);
    console.log(`\n  built ${n.toLocaleString('en')} deliveries (${journalMb} MB) in ${buildS.toFixed(0)} s; load average ${load()}`);
    const port = await freePort();
    const agent = new Agent({ connections: 1, pipelining: 0 });
    let { child } = await start(cli, dir, port, appUrl, agent);
    const runs: number[] = [];
    const ready: number[] = [];
    const accept: number[] = [];
    const api: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 3; i++) {
      await kill9(child);
      const r = await start(cli, dir, port, appUrl, agent);
      child = r.child;
      runs.push(r.ms);
      accept.push(r.acceptMs);
      api.push(r.apiMs);
      ready.push(r.readyMs);
      cpu.push(r.cpuMs);
    }
    // As issue 40 measures it: one second after the API first answered.
    await new Promise((r) => setTimeout(r, 1000));
    const rssAfterRestartMb = memKb(child.pid!).rss / 1024;
    const token = readFileSync(tokenFilePath(dir), 'utf8').trim();
    const wave = await attemptsSettled();
    const q = await queries(`http://127.0.0.1:${port}`, token, agent, n);
    const loadAtQueries = load();
    const duringDrain = await queriesDuringDrain(`http://127.0.0.1:${port}`, token, agent);
    await attemptsSettled();
    // The drain: the app is up again, the relay killed and started on the journal with PENDING pending.
    await kill9(child);
    up = true;
    const d = await start(cli, dir, port, appUrl, agent);
    await untilAccepted(PENDING);
    const drainS = (performance.now() - d.t0) / 1000;
    const drainAfterReadyS = drainS - d.readyMs / 1000;
    await kill9(d.child);
    // The same restart without the index snapshot: the index rebuilt from the segments' index files.
    renameSync(join(dir, SNAPSHOT_FILE), join(dir, `${SNAPSHOT_FILE}.away`));
    const rebuilt = await start(cli, dir, port, appUrl, agent);
    const rssRebuiltMb = memKb(rebuilt.child.pid!).rss / 1024;
    await kill9(rebuilt.child);
    await agent.close();
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
    return {
      deliveries: n,
      journalMb,
      buildS,
      restartMs: median(runs),
      restartRunsMs: runs,
      acceptMs: median(accept),
      acceptRunsMs: accept,
      apiMs: median(api),
      apiRunsMs: api,
      readyMs: median(ready),
      readyRunsMs: ready,
      restartCpuMs: median(cpu),
      rssAfterRestartMb,
      ...q,
      loadAtQueries,
      waveAfterRestart: wave,
      duringDrain,
      snapshot: snapshotWritten,
      withoutSnapshot: { acceptMs: rebuilt.acceptMs, apiMs: rebuilt.apiMs, rssAtReadyMb: rssRebuiltMb },
      drain: { pending: PENDING, seconds: drainS, perSecond: PENDING / drainS, readyS: d.readyMs / 1000, perSecondAfterReady: PENDING / drainAfterReadyS },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`relay-million: nproc ${availableParallelism()}, node ${process.version}, body ${BODY} B, ${PENDING} pending, load average ${load()}`);
  const n = fitting(Number(values.n));
  const appUrl = `http://127.0.0.1:${await new Promise<number>((r) => app.listen(0, '127.0.0.1', () => r((app.address() as { port: number }).port)))}/webhook`;
  const tmp = mkdtempSync(join(tmpdir(), 'sh-relay-million-cli-'));
  const cli = await bundleCli(tmp);
  let row: Record<string, unknown>;
  try {
    row = await measure(cli, n, appUrl);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    app.close();
    app.closeAllConnections();
  }
  const r = row as {
    restartMs: number;
    restartRunsMs: number[];
    acceptMs: number;
    acceptRunsMs: number[];
    apiMs: number;
    apiRunsMs: number[];
    readyMs: number;
    readyRunsMs: number[];
    restartCpuMs: number;
    rssAfterRestartMb: number;
    statusP50Ms: number;
    healthzP50Ms: number;
    pageNewest50P50Ms: number;
    pageOlderP50Ms: number;
    pageNoMatchP50Ms: number;
    loadAtQueries: string;
    waveAfterRestart: { attempts: number; seconds: number };
    duringDrain: { queued: number; healthzP50Ms: number; statusP50Ms: number; pageNewest50P50Ms: number; attemptsWhileMeasured: number };
    drain: { perSecond: number; perSecondAfterReady: number; seconds: number; readyS: number };
    snapshot?: { bytes: number; copyMs: number; writeMs: number };
    withoutSnapshot: { acceptMs: number; apiMs: number; rssAtReadyMb: number };
  };
  const pages = Math.max(r.statusP50Ms, r.pageNewest50P50Ms, r.pageOlderP50Ms, r.pageNoMatchP50Ms);
  const goals = {
    acceptAtMost500ms: r.acceptMs <= 500,
    apiAtMost1s: r.apiMs <= 1000,
    rssAtMost200Mb: r.rssAfterRestartMb <= 200,
    statusAndPagesAtMost2MsP50: pages <= 2,
    drainAtLeast2000PerS: r.drain.perSecond >= 2000,
  };
  const runsOf = (xs: number[]) => `runs ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')}`;
  console.log('restart = kill -9, spawn the relay process on the same journal; times from the spawn, median of 3:');
  console.log(`  /healthz 200 (listening)               ${(r.restartMs / 1000).toFixed(2)} s (${runsOf(r.restartRunsMs)}) — goal: shown`);
  console.log(`  first delivery answered 200            ${(r.acceptMs / 1000).toFixed(2)} s (${runsOf(r.acceptRunsMs)}) — goal ≤ 0.5 s`);
  console.log(`  first /api/status 200 (index built)    ${(r.apiMs / 1000).toFixed(2)} s (${runsOf(r.apiRunsMs)}) — goal ≤ 1 s`);
  console.log(
    `  /readyz 200                            ${(r.readyMs / 1000).toFixed(2)} s (${runsOf(r.readyRunsMs)}; CPU by then ${(r.restartCpuMs / 1000).toFixed(2)} s)`,
  );
  console.log(`  RSS 1 s after the API answered         ${r.rssAfterRestartMb.toFixed(0)} MB — goal ≤ 200 MB`);
  const sn = r.snapshot;
  console.log(
    `  index snapshot (issue 40): ${sn ? `${(sn.bytes / 1048576).toFixed(0)} MiB, written at the build's stop in ${(sn.writeMs / 1000).toFixed(2)} s after ${sn.copyMs.toFixed(0)} ms copying on the event loop` : 'none written'}; ` +
      `without it (rebuilt from the index files): first delivery ${(r.withoutSnapshot.acceptMs / 1000).toFixed(2)} s, /api/status ${(r.withoutSnapshot.apiMs / 1000).toFixed(2)} s, RSS at /readyz ${r.withoutSnapshot.rssAtReadyMb.toFixed(0)} MB`,
  );
  console.log(
    `the forward attempts after the restart: ${r.waveAfterRestart.attempts.toLocaleString('en')} in ${r.waveAfterRestart.seconds.toFixed(1)} s; then, quiet, ` +
      `p50: /api/status ${r.statusP50Ms.toFixed(2)} ms, /healthz ${r.healthzP50Ms.toFixed(2)} ms, newest 50 ${r.pageNewest50P50Ms.toFixed(2)} ms, a page 10,000+ back ${r.pageOlderP50Ms.toFixed(2)} ms, a filter nothing matches ${r.pageNoMatchP50Ms.toFixed(2)} ms — goal ≤ 2 ms (load average ${r.loadAtQueries})`,
  );
  const dd = r.duringDrain;
  console.log(
    `while the relay retries all ${dd.queued.toLocaleString('en')} pending (${dd.attemptsWhileMeasured.toLocaleString('en')} attempts while measured), p50: /healthz ${dd.healthzP50Ms.toFixed(2)} ms, /api/status ${dd.statusP50Ms.toFixed(2)} ms, newest 50 ${dd.pageNewest50P50Ms.toFixed(2)} ms (not a goal: shown)`,
  );
  console.log(
    `drain of ${PENDING.toLocaleString('en')} pending after a kill -9: ${r.drain.perSecond.toFixed(0)}/s from the spawn (${r.drain.seconds.toFixed(2)} s, ready after ${r.drain.readyS.toFixed(2)} s), ${r.drain.perSecondAfterReady.toFixed(0)}/s once ready — goal ≥ 2,000/s`,
  );
  console.log('goals:', JSON.stringify(goals), `load average ${load()}`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/relay-million.json'),
    JSON.stringify(
      { date: new Date().toISOString(), nproc: availableParallelism(), node: process.version, bodyBytes: BODY, ...row, goals, loadAtEnd: loadavg() },
      null,
      2,
    ) + '\n',
  );
  console.log('wrote bench/results/relay-million.json');
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
