// A relay process restarted on a large journal, timed from outside (bench:million,
// bench:ten-million). "Restart" is kill -9 of the relay process, then a spawn of a new one on the
// same journal, timed from the spawn: when /healthz first answers 200 (listening), when a posted
// delivery is first answered 200 (taken while the index loads), when GET /api/status first answers
// 200 (the index built), when /readyz answers 200; then its RSS one second after the API answered,
// and the p50 of the status and list requests.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { tokenFilePath } from '../src/core/relay/ready';
import type { RelayStatus } from '../src/core/relay/protocol';
import { sign } from '../src/core/signing';
import { cpuMs, memKb } from './procStats';
import { get, healthy, kill9, p50, ready } from './relayProbe';
import { owned } from './scratchSpace';
import { SNAPSHOT_FILE } from '../relay/server/journal/snapshotFile';

const SECRET = 'bench-secret-0123456789';
/**
 * The relay's retention, far above any journal here: by default it keeps 100,000 deliveries and
 * prunes the rest once loaded, so every restart after the first would load a tenth of a million.
 */
const KEEP_ALL = '1000000000';

/** A relay's command line and where it serves: the bundled CLI, its data folder, its port, the app it forwards to. */
export interface RelaySetup {
  cli: string;
  dir: string;
  port: number;
  appUrl: string;
  agent: Agent;
}

export interface Started {
  child: ChildProcess;
  /** From the spawn, ms: /healthz 200, a delivery answered 200, /api/status 200, /readyz 200. */
  healthzMs: number;
  acceptMs: number;
  apiMs: number;
  readyMs: number;
  /** The relay's CPU time when /readyz answered, ms. */
  cpuMs: number;
  /** performance.now() at the spawn. */
  t0: number;
}

const url = (s: RelaySetup) => `http://127.0.0.1:${s.port}`;
const tokenOf = (s: RelaySetup) => readFileSync(tokenFilePath(s.dir), 'utf8').trim();
let posted = 0;

/** Posts one signed delivery; whether the relay answered 200 (it takes deliveries while its index loads). */
async function accepts(s: RelaySetup): Promise<boolean> {
  const body = `{"restart":${posted++}}`;
  try {
    const res = await request(`${url(s)}/hooks/default`, {
      method: 'POST',
      dispatcher: s.agent,
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
async function apiAnswers(s: RelaySetup): Promise<boolean> {
  try {
    await get(`${url(s)}/api/status`, tokenOf(s), s.agent);
    return true;
  } catch {
    return false;
  }
}

/** Spawns the relay and resolves once /readyz answers 200, with the times from the spawn. Polled every 2 ms: a bench, not a test. */
export async function startRelay(s: RelaySetup): Promise<Started> {
  const t0 = performance.now();
  const child = owned(
    spawn(process.execPath, [s.cli, 'relay', '--port', String(s.port), '--data', s.dir, '--secret', SECRET, '--forward', s.appUrl, '--keep', KEEP_ALL], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  let healthzMs: number | undefined;
  let acceptMs: number | undefined;
  let apiMs: number | undefined;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`relay exited with ${child.exitCode}`);
    if (healthzMs === undefined && (await healthy(url(s), s.agent))) healthzMs = performance.now() - t0;
    if (healthzMs !== undefined && acceptMs === undefined && (await accepts(s))) acceptMs = performance.now() - t0;
    if (acceptMs !== undefined && apiMs === undefined && (await apiAnswers(s))) apiMs = performance.now() - t0;
    if (healthzMs !== undefined && acceptMs !== undefined && apiMs !== undefined && (await ready(url(s), s.agent)))
      return { child, healthzMs, acceptMs, apiMs, readyMs: performance.now() - t0, cpuMs: cpuMs(child.pid!), t0 };
    await new Promise((r) => setTimeout(r, 2));
  }
}

export interface Restarts {
  /** The last relay started (still running). */
  child: ChildProcess;
  /** Medians of the restarts, ms, and each run. */
  healthzMs: number;
  healthzRunsMs: number[];
  acceptMs: number;
  acceptRunsMs: number[];
  apiMs: number;
  apiRunsMs: number[];
  readyMs: number;
  readyRunsMs: number[];
  restartCpuMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** kill -9 of `child` and a spawn on the same journal, `times` times; the medians. */
export async function restarts(s: RelaySetup, child: ChildProcess, times = 3): Promise<Restarts> {
  const runs: Started[] = [];
  for (let i = 0; i < times; i++) {
    await kill9(child);
    const r = await startRelay(s);
    child = r.child;
    runs.push(r);
  }
  const of = (k: 'healthzMs' | 'acceptMs' | 'apiMs' | 'readyMs') => runs.map((r) => r[k]);
  return {
    child,
    healthzMs: median(of('healthzMs')),
    healthzRunsMs: of('healthzMs'),
    acceptMs: median(of('acceptMs')),
    acceptRunsMs: of('acceptMs'),
    apiMs: median(of('apiMs')),
    apiRunsMs: of('apiMs'),
    readyMs: median(of('readyMs')),
    readyRunsMs: of('readyMs'),
    restartCpuMs: median(runs.map((r) => r.cpuMs)),
  };
}

export interface RelayMemory {
  rssMb: number;
  /** The anonymous part of the RSS (the JS heap, typed arrays, malloc); the rest is mapped files and code. */
  anonMb: number;
  /** The RSS's peak so far (the load's garbage and the index's column copies as it grew). */
  peakMb: number;
}

/** Resident memory of the relay now, in MB (/proc/<pid>/status). */
export function relayMemory(child: ChildProcess): RelayMemory {
  const m = memKb(child.pid!);
  return { rssMb: m.rss / 1024, anonMb: m.anon / 1024, peakMb: m.hwm / 1024 };
}

/** The restart figures printed by both benches, each beside its goal. */
export function printRestarts(r: Omit<Restarts, 'child'>, goals: { acceptMs?: number; apiMs: number }): void {
  const runsOf = (xs: number[]) => `runs ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')}`;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log('restart = kill -9 of the relay process, then spawn it on the same journal; times from the spawn, median of 3:');
  console.log(`  /healthz 200 (listening)               ${s(r.healthzMs)} (${runsOf(r.healthzRunsMs)}) — goal: shown`);
  console.log(
    `  first delivery answered 200            ${s(r.acceptMs)} (${runsOf(r.acceptRunsMs)}) — ${goals.acceptMs === undefined ? 'goal: shown' : `goal ≤ ${s(goals.acceptMs)}`}`,
  );
  console.log(`  first /api/status 200 (index built)    ${s(r.apiMs)} (${runsOf(r.apiRunsMs)}) — goal ≤ ${s(goals.apiMs)}`);
  console.log(`  /readyz 200                            ${s(r.readyMs)} (${runsOf(r.readyRunsMs)}; CPU by then ${s(r.restartCpuMs)})`);
}

/** The p50 of `times` GETs of `path` on the relay, one after another. */
export function p50Get(s: RelaySetup, path: string, times: number): Promise<number> {
  const token = tokenOf(s);
  return p50(times, async () => void (await get(`${url(s)}${path}`, token, s.agent)));
}

export interface Queries {
  healthzP50Ms: number;
  statusP50Ms: number;
  pageNewest50P50Ms: number;
  pageOlderP50Ms: number;
  pageNoMatchP50Ms: number;
  /** The relay's counters over every channel (GET /api/status): a filter whose counter is 0 is answered without a walk. */
  counts: { received: number; forwarded: number; failed: number; pending: number };
}

/** The latencies of the status and list requests on a started relay holding about `n` deliveries. */
export async function queries(s: RelaySetup, n: number): Promise<Queries> {
  const status = (await get(`${url(s)}/api/status`, tokenOf(s), s.agent)) as RelayStatus;
  const counts = { received: 0, forwarded: 0, failed: 0, pending: 0 };
  for (const c of status.channels) for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += c[k] ?? 0;
  const before = Math.max(1, status.lastSeq - Math.min(10_000 + Math.floor(n / 4), n - 100));
  return {
    healthzP50Ms: await p50Get(s, '/healthz', 500),
    statusP50Ms: await p50Get(s, '/api/status', 500),
    pageNewest50P50Ms: await p50Get(s, '/api/deliveries?limit=50', 200),
    pageOlderP50Ms: await p50Get(s, `/api/deliveries?limit=50&before=${before}`, 200),
    pageNoMatchP50Ms: await p50Get(s, '/api/deliveries?limit=50&status=failed', 50),
    counts,
  };
}

/** POST /api/forward/retry: the relay retries every pending forward now; how many it queued. */
export async function retryAll(s: RelaySetup): Promise<number> {
  const res = await request(`${url(s)}/api/forward/retry`, {
    method: 'POST',
    dispatcher: s.agent,
    headers: { authorization: `Bearer ${tokenOf(s)}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await res.body.json()) as { queued: number }).queued;
}

/** The RSS of a relay on an empty journal, one second after its API answered: what a delivery's memory is counted above. */
export async function emptyRelayMemory(s: Omit<RelaySetup, 'dir'>, dir: string): Promise<RelayMemory> {
  const r = await startRelay({ ...s, dir });
  await new Promise((res) => setTimeout(res, 1000));
  const m = relayMemory(r.child);
  await kill9(r.child);
  return m;
}

/** Bytes of RSS per delivery between two relays' RSS (MB) holding `from` and `to` deliveries. */
export function bytesPerDelivery(fromMb: number, toMb: number, from: number, to: number): number {
  return ((toMb - fromMb) * 1024 * 1024) / (to - from);
}

/**
 * The first start on a journal written offline (no index snapshot yet, as after an upgrade): its
 * times, then the wait until the relay wrote its snapshot (it does once the index is built), so
 * the timed restarts after it read one, as a relay that has run does. Polled every 50 ms: a bench.
 */
export async function firstStart(s: RelaySetup): Promise<Started & { snapshotS: number }> {
  const spawnedAt = Date.now();
  const started = await startRelay(s);
  const mtime = () => {
    try {
      return statSync(join(s.dir, SNAPSHOT_FILE)).mtimeMs;
    } catch {
      return 0;
    }
  };
  while (mtime() < spawnedAt) {
    if (started.child.exitCode !== null) throw new Error(`relay exited with ${started.child.exitCode}`);
    if (Date.now() - spawnedAt > 600_000) throw new Error('the relay wrote no index snapshot within 10 minutes');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { ...started, snapshotS: (mtime() - spawnedAt) / 1000 };
}
