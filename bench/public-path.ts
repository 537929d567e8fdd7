// Benchmark: the public path (issue 24), as developers use it with the real service: signed 1 KB
// deliveries over TLS to a channel of the relay (HTTPS, a channel with its own secret, no
// --forward), the relay streams each to a `service-hooks forward` subscriber over WSS, which posts
// it to the app. Against, in the same rounds: the app directly, and the durable proxy
// (bench/durable-proxy.mjs, plain HTTP: the least any durable relay must do). Then 25 MB
// deliveries through the public path, with the peak RSS of the relay and the subscriber.
// Beside them, the peer the issue names: smee-client (npm, its `smee` command) with a minimal
// smee.io server (bench/smee-server.mjs: plain HTTP, nothing stored, the body re-serialised),
// the same deliveries and 25 MB bodies; its figures are shown, not goals.
// Goals: throughput at c=32 ≥ 0.6× the durable proxy; added p50 at c=1 ≤ 2 ms over direct; each
// process's RSS growth for a 25 MB delivery under 3× the body. Latency is send → arrival at the
// app (same process, same clock). Writes bench/results/public-path.json. Not a test.
// Also the CPU time per delivery of the relay, the subscriber and the durable proxy (from /proc).
//   BENCH_N (per side per level, default 3,000), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (1,32),
//   BENCH_BIG (25 MB deliveries, default 3; 0: none)
//   BENCH_PUBLIC_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") for the relay and forward children
//   BENCH_PUBLIC_PARALLEL (default 32, as many as the senders): a second public path, its own relay and `forward --parallel N`
//   (opt-in: the app's order is not kept), in the same rounds; 0 or 1: none
//   BENCH_PUBLIC_APP_PROCESS=1 (an ablation: the app in a process of its own, bench/app-process.mjs,
//   instead of this process, which also runs the 32 senders)
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { sign } from '../src/core/signing';
import { makeTestCerts } from '../test/unit/relay/support/certs';
import { cpuMs, memKb } from './procStats';
import { bundleCli, listenLocal, RELAY_READY, ROOT, spawnListening } from './relayChild';

const SECRET = 'bench-public-secret-0123456789';
const N = Number(process.env.BENCH_N ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number);
const BIG = 25 * 1024 * 1024;
const BIG_COUNT = Number(process.env.BENCH_BIG ?? 3);
const NODE_ARGS = (process.env.BENCH_PUBLIC_NODE_ARGS ?? '').split(' ').filter(Boolean);
const PARALLEL = Number(process.env.BENCH_PUBLIC_PARALLEL ?? 32);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// ---- the app: the arrival time of each delivery id ----
const arrivals = new Map<string, number>();
let waiter: { id: string; resolve: () => void } | undefined;
const app = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrived(String(req.headers['x-service-delivery']), performance.now());
    res.writeHead(200, { 'content-length': '2' }).end('ok');
  });
});

/** An arrival at the app: recorded, and the waiter woken if it was the one awaited. */
function arrived(id: string, at: number): void {
  arrivals.set(id, at);
  if (waiter && arrivals.has(waiter.id)) waiter.resolve();
}

/** The app in a process of its own (BENCH_PUBLIC_APP_PROCESS): its URL; arrivals come over IPC. */
async function appProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, 'bench/app-process.mjs')], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  child.on('message', (batch: [string, number][]) => {
    for (const [id, epochMs] of batch) arrived(id, epochMs - performance.timeOrigin);
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const port = /app listening on (\d+)/.exec(line.toString())?.[1];
  if (!port) throw new Error(`app process: ${line.toString()}`);
  return { url: `http://127.0.0.1:${port}/webhook`, child };
}

/** All of `ids` at the app (checked in order: one waiter at a time). */
async function allArrived(ids: string[]): Promise<void> {
  for (const id of ids) if (!arrivals.has(id)) await new Promise<void>((r) => (waiter = { id, resolve: r }));
}

function payload(id: string): Buffer {
  return Buffer.from(JSON.stringify({ action: 'opened', id, pad: 'x'.repeat(960) }));
}

interface Run {
  perSecond: number;
  latencies: number[];
}

async function run(url: string, label: string, c: number, n: number, agent: Agent): Promise<Run> {
  const ids = Array.from({ length: n }, (_, i) => `${label}-${i}`);
  const bodies = ids.map(payload);
  const sentAt = new Map<string, number>();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const i = next++;
        sentAt.set(ids[i]!, performance.now());
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          body: bodies[i],
          headers: {
            'content-type': 'application/json',
            'x-service-signature': sign(SECRET, bodies[i]!),
            'x-service-event': 'push',
            'x-service-delivery': ids[i]!,
          },
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`${label}: HTTP ${res.statusCode}`);
      }
    }),
  );
  await allArrived(ids);
  const seconds = (performance.now() - t0) / 1000;
  const latencies = ids.map((id) => arrivals.get(id)! - sentAt.get(id)!);
  for (const id of ids) arrivals.delete(id);
  return { perSecond: n / seconds, latencies };
}

/** Deliveries per second that the cores could carry at these µs of CPU per delivery (each process's share). */
function cpuCeiling(...usPerDelivery: number[]): number {
  return (availableParallelism() * 1e6) / usPerDelivery.reduce((a, b) => a + b, 0);
}

function pooled(runs: Run[]): { perSecond: number; p50: number } {
  const lat = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  // Deliveries over the summed time of the rounds.
  const seconds = runs.reduce((s, r) => s + r.latencies.length / r.perSecond, 0);
  return { perSecond: lat.length / seconds, p50: lat[Math.floor(lat.length / 2)]! };
}

/** The public path: relay (TLS, a channel), its admin token, and a forward subscriber (`--parallel` if given) to the app. */
async function publicPath(
  cli: string,
  work: string,
  appUrl: string,
  parallel?: number,
): Promise<{ relay: ChildProcess; forward: ChildProcess; url: string; ca: Buffer }> {
  const certs = makeTestCerts();
  work = join(work, parallel ? `parallel-${parallel}` : 'in-order');
  mkdirSync(work);
  const data = join(work, 'relay');
  const r = await spawnListening(
    NODE_ARGS,
    cli,
    ['relay', '--port', '0', '--ready', 'json', '--data', data, '--tls-cert', certs.serverCert, '--tls-key', certs.serverKey],
    RELAY_READY,
  );
  const token = (
    JSON.parse(
      r
        .out()
        .split('\n')
        .find((l) => l.startsWith('{"ready"'))!,
    ) as { tokenFile: string }
  ).tokenFile;
  const admin = readFileSync(token, 'utf8').trim();
  const base = `https://127.0.0.1:${r.port}`;
  const tls = new Agent({ connect: { ca: certs.ca } });
  const made = await request(`${base}/api/channels`, {
    method: 'POST',
    dispatcher: tls,
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', secrets: [SECRET] }),
  });
  if (made.statusCode !== 201) throw new Error(`POST /api/channels: ${made.statusCode} ${await made.body.text()}`);
  await made.body.dump();
  await tls.close();
  const forward = spawn(
    process.execPath,
    [
      ...NODE_ARGS,
      cli,
      'forward',
      '--relay',
      `wss://127.0.0.1:${r.port}`,
      '--token',
      admin,
      '--channel',
      'bench',
      '--to',
      appUrl,
      '--state',
      join(work, 'forward-state.json'),
      ...(parallel ? ['--parallel', String(parallel)] : []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_EXTRA_CA_CERTS: certs.caCert } },
  );
  let err = '';
  await new Promise<void>((resolve, reject) => {
    forward.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (/: connected \(relay at seq/.test(err)) resolve();
    });
    forward.once('exit', (code) => reject(new Error(`forward exited with ${code}: ${err}`)));
  });
  return { relay: r.child, forward, url: `${base}/hooks/bench`, ca: certs.ca };
}

/** The peer: bench/smee-server.mjs and the `smee` command of smee-client, forwarding to the app. */
async function smeePath(appUrl: string): Promise<{ server: ChildProcess; client: ChildProcess; url: string }> {
  const server = await spawnListening([], join(ROOT, 'bench/smee-server.mjs'), ['0'], /smee server listening on http:\/\/127\.0\.0\.1:(\d+)/);
  const url = `http://127.0.0.1:${server.port}/bench`;
  const client = await spawnListening([], join(ROOT, 'node_modules/smee-client/bin/smee.js'), ['--url', url, '--target', appUrl], (out) =>
    out.includes('Connected to') ? 0 : undefined,
  );
  return { server: server.child, client: client.child, url };
}

/** 25 MB deliveries through the public path: each process's RSS growth over the body. */
async function big(
  url: string,
  agent: Agent,
  procs: Record<string, ChildProcess>,
): Promise<Record<string, { rssBeforeMb: number; peakMb: number; growthOverBody: number }>> {
  const before = Object.fromEntries(Object.entries(procs).map(([k, p]) => [k, memKb(p.pid!).rss]));
  const body = Buffer.alloc(BIG, 0x61);
  body.write('{"big":"', 0);
  body.write('"}', BIG - 2);
  for (let i = 0; i < BIG_COUNT; i++) {
    const id = `big-${i}`;
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': sign(SECRET, body), 'x-service-delivery': id },
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`25 MB: HTTP ${res.statusCode}`);
    await allArrived([id]);
  }
  return Object.fromEntries(
    Object.entries(procs).map(([k, p]) => {
      const m = memKb(p.pid!);
      return [k, { rssBeforeMb: before[k]! / 1024, peakMb: m.hwm / 1024, growthOverBody: ((m.hwm - before[k]!) * 1024) / BIG }];
    }),
  );
}

async function main(): Promise<void> {
  const separate = process.env.BENCH_PUBLIC_APP_PROCESS ? await appProcess() : undefined;
  const appUrl = separate?.url ?? (await listenLocal(app, '/webhook'));
  if (separate) console.log('ABLATION: the app in a process of its own (BENCH_PUBLIC_APP_PROCESS)');
  const work = mkdtempSync(join(tmpdir(), 'sh-bench-public-'));
  const cli = await bundleCli(work);
  const pub = await publicPath(cli, work, appUrl);
  const par = PARALLEL > 1 ? await publicPath(cli, work, appUrl, PARALLEL) : undefined;
  const durable = await spawnListening(
    [],
    join(ROOT, 'bench/durable-proxy.mjs'),
    ['0', appUrl, SECRET, join(work, 'durable.log')],
    /durable proxy listening on http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const durableUrl = `http://127.0.0.1:${durable.port}/hooks/default`;
  const smee = await smeePath(appUrl);
  // Each path made its own CA: the agent trusts both.
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000, connect: { ca: [pub.ca, ...(par ? [par.ca] : [])] } });
  const results: Record<string, unknown> = {};
  try {
    for (const [url, label] of [
      [appUrl, 'warm-direct'],
      [durableUrl, 'warm-durable'],
      [pub.url, 'warm-public'],
      ...(par ? [[par.url, 'warm-parallel'] as const] : []),
      [smee.url, 'warm-smee'],
    ] as const)
      await run(url, label, 8, 500, agent);
    console.log(`public path: nproc ${availableParallelism()}, node ${process.version}, 1 KB signed deliveries, ${N} per side per level in ${ROUNDS} rounds`);
    for (const c of CONCURRENCY) {
      const sides: Record<string, Run[]> = { direct: [], durable: [], public: [], parallel: [], smee: [] };
      const cpu = { relay: 0, forward: 0, durable: 0, smeeServer: 0, smeeClient: 0, benchPublic: 0, relayP: 0, forwardP: 0, benchParallel: 0 };
      const urls = { durable: durableUrl, public: pub.url, parallel: par?.url ?? '', smee: smee.url };
      const pidsOf = {
        durable: { durable: durable.child.pid! },
        public: { relay: pub.relay.pid!, forward: pub.forward.pid! },
        parallel: (par ? { relayP: par.relay.pid!, forwardP: par.forward.pid! } : {}) as Record<string, number>,
        smee: { smeeServer: smee.server.pid!, smeeClient: smee.client.pid! },
      };
      const per = Math.ceil(N / ROUNDS);
      for (let r = 0; r < ROUNDS; r++) {
        sides.direct!.push(await run(appUrl, `direct-${c}-${r}`, c, per, agent));
        // The durable proxy, the public path (in order, and parallel) and smee take turns going first.
        const turns = par ? (['durable', 'public', 'parallel', 'smee'] as const) : (['durable', 'public', 'smee'] as const);
        for (let t = 0; t < turns.length; t++) {
          const s = turns[(t + r) % turns.length]!;
          const pids: Record<string, number> = pidsOf[s];
          const before = Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)] as const);
          const self = process.cpuUsage();
          sides[s]!.push(await run(urls[s], `${s}-${c}-${r}`, c, per, agent));
          for (const [k, t0] of before) cpu[k as keyof typeof cpu] += cpuMs(pids[k]!) - t0;
          // This process sends and is the app: its share of the public path's CPU.
          const used = process.cpuUsage(self);
          if (s === 'public') cpu.benchPublic += (used.user + used.system) / 1000;
          if (s === 'parallel') cpu.benchParallel += (used.user + used.system) / 1000;
        }
      }
      const cpuUs = Object.fromEntries(Object.entries(cpu).map(([k, ms]) => [k, (ms * 1000) / (per * ROUNDS)])) as typeof cpu;
      const [d, du, p, sm] = [pooled(sides.direct!), pooled(sides.durable!), pooled(sides.public!), pooled(sides.smee!)];
      const pp = par ? pooled(sides.parallel!) : undefined;
      const ceilingP = cpuCeiling(cpuUs.relayP, cpuUs.forwardP, cpuUs.benchParallel);
      const ratio = p.perSecond / du.perSecond;
      // The most the public path could carry if it used every core for nothing else: its CPU per
      // delivery (relay, forward, and this process as sender and app) against the cores there are.
      const ceiling = cpuCeiling(cpuUs.relay, cpuUs.forward, cpuUs.benchPublic);
      const added = p.p50 - d.p50;
      results[`c${c}`] = {
        direct: d,
        durableProxy: du,
        publicPath: p,
        publicOverDurable: ratio,
        addedP50Ms: added,
        smee: { ...sm, overDurable: sm.perSecond / du.perSecond, addedP50Ms: sm.p50 - d.p50 },
        ...(pp
          ? {
              publicParallel: {
                parallel: PARALLEL,
                ...pp,
                overDurable: pp.perSecond / du.perSecond,
                addedP50Ms: pp.p50 - d.p50,
                cpuCeilingOverDurable: ceilingP / du.perSecond,
              },
            }
          : {}),
        cpuUsPerDelivery: cpuUs,
        cpuCeilingPerSecond: ceiling,
        cpuCeilingOverDurable: ceiling / du.perSecond,
        loadAverage: loadavg(),
      };
      console.log(
        `c=${String(c).padEnd(2)} direct ${d.perSecond.toFixed(0)}/s p50 ${d.p50.toFixed(2)} ms | durable proxy ${du.perSecond.toFixed(0)}/s p50 ${du.p50.toFixed(2)} ms | public path ${p.perSecond.toFixed(0)}/s p50 ${p.p50.toFixed(2)} ms`,
      );
      console.log(
        `      public path/durable proxy ${ratio.toFixed(2)}×${c === 32 ? ' (goal ≥ 0.6×)' : ''} | added p50 over direct ${added.toFixed(2)} ms${c === 1 ? ' (goal ≤ 2 ms)' : ''} | load average ${load()}`,
      );
      console.log(
        `      CPU per delivery: relay ${cpuUs.relay.toFixed(0)} µs + forward ${cpuUs.forward.toFixed(0)} µs (+ ${cpuUs.benchPublic.toFixed(0)} µs this process: sender and app) | durable proxy ${cpuUs.durable.toFixed(0)} µs (10 ms ticks)`,
      );
      // (At c=1 the senders, not the CPU, set the pace: no ceiling to show.)
      if (c > 1)
        console.log(
          `      CPU ceiling of the public path on ${availableParallelism()} cores: ${ceiling.toFixed(0)}/s = ${(ceiling / du.perSecond).toFixed(2)}× the durable proxy's measured rate, however forward posted`,
        );
      if (pp) {
        console.log(
          `      public path with forward --parallel ${PARALLEL} (opt-in: the app's order not kept) ${pp.perSecond.toFixed(0)}/s p50 ${pp.p50.toFixed(2)} ms: ${(pp.perSecond / du.perSecond).toFixed(2)}× the durable proxy${c === 32 ? ' (goal ≥ 0.6×)' : ''}, added p50 ${(pp.p50 - d.p50).toFixed(2)} ms`,
        );
        console.log(
          `        its CPU per delivery: relay ${cpuUs.relayP.toFixed(0)} µs + forward ${cpuUs.forwardP.toFixed(0)} µs + ${cpuUs.benchParallel.toFixed(0)} µs this process${c > 1 ? `; its CPU ceiling ${(ceilingP / du.perSecond).toFixed(2)}× the durable proxy, ${((100 * pp.perSecond) / ceilingP).toFixed(0)} % of it reached` : ''}`,
        );
      }
      console.log(
        `      peer: smee-client + a minimal smee.io (plain HTTP, not durable) ${sm.perSecond.toFixed(0)}/s p50 ${sm.p50.toFixed(2)} ms: ${(sm.perSecond / du.perSecond).toFixed(2)}× the durable proxy, added p50 ${(sm.p50 - d.p50).toFixed(2)} ms, CPU ${cpuUs.smeeServer.toFixed(0)} µs (server) + ${cpuUs.smeeClient.toFixed(0)} µs (client)`,
      );
    }
    if (BIG_COUNT > 0) {
      const show = (mem: Awaited<ReturnType<typeof big>>) =>
        Object.entries(mem)
          .map(([k, m]) => `${k} RSS ${m.rssBeforeMb.toFixed(0)} → peak ${m.peakMb.toFixed(0)} MB (growth ${m.growthOverBody.toFixed(2)}× the body)`)
          .join('; ');
      const mem = await big(pub.url, agent, { relay: pub.relay, forward: pub.forward });
      results.big = { bytes: BIG, count: BIG_COUNT, ...mem };
      console.log(`${BIG_COUNT} × 25 MB through the public path: ${show(mem)} (goal < 3×)`);
      const smeeMem = await big(smee.url, agent, { smeeServer: smee.server, smeeClient: smee.client });
      results.bigSmee = smeeMem;
      console.log(`${BIG_COUNT} × 25 MB through smee: ${show(smeeMem)} (shown)`);
    }
  } finally {
    const children = [pub.relay, pub.forward, ...(par ? [par.relay, par.forward] : []), durable.child, smee.server, smee.client];
    for (const p of children) p.kill('SIGTERM');
    await Promise.all(children.map((p) => (p.exitCode === null ? once(p, 'exit') : undefined)));
    await agent.close();
    separate?.child.disconnect();
    app.close();
    app.closeAllConnections();
    rmSync(work, { recursive: true, force: true });
  }
  if (!results.c1 || !results.c32) return console.log('partial run (BENCH_CONCURRENCY): bench/results/public-path.json not written');
  if (process.env.BENCH_PUBLIC_APP_PROCESS) return console.log('ablation (BENCH_PUBLIC_APP_PROCESS): bench/results/public-path.json not written');
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/public-path.json'),
    JSON.stringify({ when: new Date().toISOString(), node: process.version, nproc: availableParallelism(), ...results }, null, 2) + '\n',
  );
  console.log('wrote bench/results/public-path.json');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
