// Benchmark: the relay's cost. One load generator (undici) posts signed 1 KB deliveries
// (a) directly to a local target app, (b) through a bare proxy (bench/bare-proxy.mjs: node:http +
// undici forwarding, no verification, no journal) and (c) through the relay (verify, journal with
// fdatasync, forward) to the same app, at concurrency 1 and 32, then one 25 MB delivery through
// the relay. (d) The durable proxy (bench/durable-proxy.mjs: the HMAC check, one append-only file
// with group commit, 200 after its fdatasync, then the forward) is the floor of any relay with the
// relay's guarantees: relay/durable proxy at c=32 is issue 24's yardstick (goal ≥ 0.85×).
// At each level the sides alternate in rounds (BENCH_ROUNDS, default 6; BENCH_N deliveries per side per level, default 6,000) and each side
// pools its rounds, so a drift in the machine's speed during the run hits every side alike.
// relay/bare proxy is what the relay's guarantees cost beyond HTTP itself.
// Latency is measured from send to receipt at the target (same process, same clock); "added" is
// relay minus direct. The relay runs as a child process (the bundled CLI) so its RSS is its own.
// A benchmark, not a test: it prints the figures measured in this run and writes
// bench/results/relay.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { Agent, request } from 'undici';
import { sign } from '../src/core/signing';
import { cpuMs, memKb } from './procStats';
import { bundleCli, listenLocal, RELAY_READY, ROOT, spawnListening } from './relayChild';

const SECRET = 'bench-secret';
const N = Number(process.env.BENCH_N ?? 6000);
const WARMUP = 1000;
/** Direct and relay alternate in this many rounds per concurrency level. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BIG = 25 * 1024 * 1024;
/** BENCH_CONCURRENCY=32 runs one level only (for profiling); the targets need both 1 and 32. */
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,32').split(',').map(Number);

// ---- target app: records the receipt time of each delivery id ----
const arrivals = new Map<string, number>();
let arrivalWaiter: { want: number; resolve: () => void } | undefined;
let arrived = 0;
const target = createServer((req, res) => {
  let size = 0;
  req.on('data', (c: Buffer) => (size += c.length));
  req.on('end', () => {
    const id = req.headers['x-service-delivery'] as string;
    arrivals.set(id, performance.now());
    arrived++;
    res.writeHead(200, { 'content-length': '2' }).end('ok');
    if (arrivalWaiter && arrived >= arrivalWaiter.want) arrivalWaiter.resolve();
  });
});

function untilArrived(n: number): Promise<void> {
  if (arrived >= n) return Promise.resolve();
  return new Promise((r) => (arrivalWaiter = { want: n, resolve: r }));
}

function payload(id: string): Buffer {
  const base = { action: 'opened', id, repository: { full_name: 'acme/widgets' }, pad: '' };
  const len = Buffer.byteLength(JSON.stringify(base));
  base.pad = 'x'.repeat(Math.max(0, 1024 - len));
  return Buffer.from(JSON.stringify(base));
}

interface RunResult {
  concurrency: number;
  requests: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** Send → receipt at the target, ms. */
  p50: number;
  p99: number;
  latencies: number[];
}

async function run(url: string, label: string, concurrency: number, count: number, agent: Agent): Promise<RunResult> {
  const sentAt = new Map<string, number>();
  const bodies = Array.from({ length: count }, (_, i) => payload(`${label}-${concurrency}-${i}`));
  const sigs = bodies.map((b) => sign(SECRET, b));
  const base = arrived;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const id = `${label}-${concurrency}-${i}`;
      sentAt.set(id, performance.now());
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-service-signature': sigs[i]!, 'x-service-event': 'push', 'x-service-delivery': id },
        body: bodies[i],
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`${label}: HTTP ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await untilArrived(base + count);
  const seconds = (performance.now() - t0) / 1000;
  const latencies = [...sentAt].map(([id, t]) => arrivals.get(id)! - t).sort((a, b) => a - b);
  for (const id of sentAt.keys()) arrivals.delete(id); // later runs do not pay for a larger map
  return {
    concurrency,
    requests: count,
    seconds,
    deliveriesPerSecond: count / seconds,
    p50: pct(latencies, 0.5),
    p99: pct(latencies, 0.99),
    latencies,
  };
}

/** Several rounds of one side as one result: deliveries over the summed time, pooled latencies. */
function combine(rounds: RunResult[]): RunResult {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const seconds = rounds.reduce((n, r) => n + r.seconds, 0);
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    concurrency: rounds[0]!.concurrency,
    requests,
    seconds,
    deliveriesPerSecond: requests / seconds,
    p50: pct(latencies, 0.5),
    p99: pct(latencies, 0.99),
    latencies,
  };
}

/** The CPU milliseconds process `pid` used while `work` ran. */
async function cpuOf(pid: number, work: () => Promise<void>): Promise<number> {
  const t0 = cpuMs(pid);
  await work();
  return cpuMs(pid) - t0;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function main(): Promise<void> {
  const targetUrl = await listenLocal(target, '/webhook');

  const work = mkdtempSync(join(tmpdir(), 'sh-bench-relay-'));
  const cli = await bundleCli(work);
  const dataDir = join(work, 'data');
  // BENCH_RELAY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the relay child.
  const nodeArgs = (process.env.BENCH_RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const relayChild = await spawnListening(
    nodeArgs,
    cli,
    ['relay', '--port', '0', '--ready', 'json', '--data', dataDir, '--secret', SECRET, '--forward', targetUrl],
    RELAY_READY,
  );
  const child = relayChild.child;
  if (nodeArgs.length > 0) child.stdout!.on('data', (c: Buffer) => process.stderr.write(c)); // e.g. --trace-gc output
  const relayUrl = `http://127.0.0.1:${relayChild.port}/hooks/default`;
  // The same relay with --no-metrics, alternating with it: what the Prometheus metrics cost (issue 23: within 3%).
  // BENCH_COMPARE_CLI=<a bundled cli.js of another build> puts that build, metrics on, in this
  // side's place (an A/B of two relay builds in one run; the "off" figures are then that build's).
  const compareCli = process.env.BENCH_COMPARE_CLI;
  const offChild = await spawnListening(
    [],
    compareCli ?? cli,
    [
      'relay',
      '--port',
      '0',
      '--ready',
      'json',
      '--data',
      join(work, 'data-off'),
      '--secret',
      SECRET,
      '--forward',
      targetUrl,
      ...(compareCli ? [] : ['--no-metrics']),
    ],
    RELAY_READY,
  );
  if (compareCli) console.log(`the "metrics off" side is the build ${compareCli}, metrics on`);
  const offUrl = `http://127.0.0.1:${offChild.port}/hooks/default`;
  // The bare proxy: node:http + undici forwarding, no verification, no journal (bench/bare-proxy.mjs).
  const bare = await spawnListening([], join(ROOT, 'bench/bare-proxy.mjs'), [targetUrl], /bare proxy listening on http:\/\/127\.0\.0\.1:(\d+)/);
  const bareUrl = `http://127.0.0.1:${bare.port}/hooks/default`;
  // The durable proxy: what the relay's guarantees cost at the least (bench/durable-proxy.mjs).
  const durable = await spawnListening(
    [],
    join(ROOT, 'bench/durable-proxy.mjs'),
    ['0', targetUrl, SECRET, join(work, 'durable.log')],
    /durable proxy listening on http:\/\/127\.0\.0\.1:(\d+)/,
  );
  const durableUrl = `http://127.0.0.1:${durable.port}/hooks/default`;
  const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });

  // Warm-up every path (JIT, connections).
  await run(targetUrl, 'warm-direct', 8, WARMUP, agent);
  await run(bareUrl, 'warm-bare', 8, WARMUP, agent);
  await run(durableUrl, 'warm-durable', 8, WARMUP, agent);
  await run(relayUrl, 'warm-relay', 8, WARMUP, agent);
  await run(offUrl, 'warm-off', 8, WARMUP, agent);
  const memAfterWarmup = memKb(child.pid!);

  const results: Record<string, unknown> = {};
  const lines: string[] = [
    `nproc ${availableParallelism()} (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}, 1 KB signed deliveries, ${N} per side per level in ${ROUNDS} rounds`,
  ];
  console.log(lines[0]);
  for (const c of CONCURRENCY) {
    // Direct, bare proxy and relay alternate in ROUNDS rounds of N/ROUNDS deliveries each, so that
    // every side sees the same drift in this machine's speed (a shared VM: back-to-back runs of
    // the same thing differ by tens of percent); each side's figures pool its rounds.
    const directRounds: RunResult[] = [];
    const bareRounds: RunResult[] = [];
    const durableRounds: RunResult[] = [];
    let durableCpu = 0;
    const relayRounds: RunResult[] = [];
    const offRounds: RunResult[] = [];
    let offCpu = 0;
    let relayCpu = 0;
    let relayMain = 0;
    let bareCpu = 0;
    let benchCpuUsed = 0;
    const per = Math.ceil(N / ROUNDS);
    for (let r = 0; r < ROUNDS; r++) {
      directRounds.push(await run(targetUrl, `direct-r${r}`, c, per, agent));
      const bareCpu0 = cpuMs(bare.child.pid!);
      bareRounds.push(await run(bareUrl, `bare-r${r}`, c, per, agent));
      bareCpu += cpuMs(bare.child.pid!) - bareCpu0;
      // The durable proxy and the relay take turns going first, for the same reason as below.
      const durableRound = async () =>
        (durableCpu += await cpuOf(durable.child.pid!, () => run(durableUrl, `durable-r${r}`, c, per, agent).then((x) => void durableRounds.push(x))));
      if (r % 2 === 0) await durableRound();
      // Metrics on and off take turns going first: whichever runs right after the bare proxy is
      // slower on this machine (measured: two --no-metrics relays differ by 20% in a fixed order).
      if (r % 2 === 1) offCpu += await cpuOf(offChild.child.pid!, () => run(offUrl, `off-r${r}`, c, per, agent).then((x) => void offRounds.push(x)));
      const benchCpu0 = process.cpuUsage();
      const relayCpu0 = cpuMs(child.pid!);
      const relayMain0 = cpuMs(child.pid!, child.pid!);
      relayRounds.push(await run(relayUrl, `relay-r${r}`, c, per, agent));
      const benchCpu = process.cpuUsage(benchCpu0);
      relayCpu += cpuMs(child.pid!) - relayCpu0;
      relayMain += cpuMs(child.pid!, child.pid!) - relayMain0;
      benchCpuUsed += benchCpu.user + benchCpu.system;
      if (r % 2 === 1) await durableRound();
      if (r % 2 === 0) offCpu += await cpuOf(offChild.child.pid!, () => run(offUrl, `off-r${r}`, c, per, agent).then((x) => void offRounds.push(x)));
    }
    const direct = combine(directRounds);
    const bareR = combine(bareRounds);
    const relay = combine(relayRounds);
    const off = combine(offRounds);
    const durableR = combine(durableRounds);
    const durableCpuUs = (durableCpu * 1000) / durableR.requests;
    const durableRatio = relay.deliveriesPerSecond / durableR.deliveriesPerSecond;
    const metricsRatio = relay.deliveriesPerSecond / off.deliveriesPerSecond;
    const offCpuUs = (offCpu * 1000) / off.requests;
    // CPU per delivery during the relay rounds: the relay child (all its threads) and this process.
    const relayCpuUs = (relayCpu * 1000) / relay.requests;
    const relayMainUs = (relayMain * 1000) / relay.requests;
    const bareCpuUs = (bareCpu * 1000) / bareR.requests;
    const benchCpuUs = benchCpuUsed / relay.requests;
    const addedP50 = relay.p50 - direct.p50;
    const addedP99 = relay.p99 - direct.p99;
    const ratio = relay.deliveriesPerSecond / direct.deliveriesPerSecond;
    const bareRatio = relay.deliveriesPerSecond / bareR.deliveriesPerSecond;
    results[`c${c}`] = {
      requests: relay.requests,
      rounds: ROUNDS,
      direct: { deliveriesPerSecond: direct.deliveriesPerSecond, p50Ms: direct.p50, p99Ms: direct.p99 },
      bareProxy: { deliveriesPerSecond: bareR.deliveriesPerSecond, p50Ms: bareR.p50, p99Ms: bareR.p99, cpuUsPerDelivery: bareCpuUs },
      durableProxy: { deliveriesPerSecond: durableR.deliveriesPerSecond, p50Ms: durableR.p50, p99Ms: durableR.p99, cpuUsPerDelivery: durableCpuUs },
      relayOverDurableProxy: durableRatio,
      addedP50OverDurableMs: relay.p50 - durableR.p50,
      relay: { deliveriesPerSecond: relay.deliveriesPerSecond, p50Ms: relay.p50, p99Ms: relay.p99 },
      relayCpuUsPerDelivery: relayCpuUs,
      relayMainThreadCpuUsPerDelivery: relayMainUs,
      benchCpuUsPerDeliveryDuringRelay: benchCpuUs,
      addedP50Ms: addedP50,
      addedP99Ms: addedP99,
      addedP50OverBareMs: relay.p50 - bareR.p50,
      throughputRatio: ratio,
      relayOverBareProxy: bareRatio,
      metricsOff: { deliveriesPerSecond: off.deliveriesPerSecond, p50Ms: off.p50, p99Ms: off.p99, relayCpuUsPerDelivery: offCpuUs },
      metricsOnOverOff: metricsRatio,
    };
    lines.push(
      `c=${String(c).padEnd(2)}  direct ${direct.deliveriesPerSecond.toFixed(0).padStart(6)}/s p50 ${direct.p50.toFixed(2)} ms p99 ${direct.p99.toFixed(2)} ms` +
        ` | bare proxy ${bareR.deliveriesPerSecond.toFixed(0).padStart(6)}/s p50 ${bareR.p50.toFixed(2)} ms p99 ${bareR.p99.toFixed(2)} ms` +
        ` | durable proxy ${durableR.deliveriesPerSecond.toFixed(0).padStart(6)}/s p50 ${durableR.p50.toFixed(2)} ms p99 ${durableR.p99.toFixed(2)} ms` +
        ` | relay ${relay.deliveriesPerSecond.toFixed(0).padStart(6)}/s p50 ${relay.p50.toFixed(2)} ms p99 ${relay.p99.toFixed(2)} ms`,
      `      relay/durable proxy ${durableRatio.toFixed(2)}×${c === 32 ? ' (goal ≥ 0.85×)' : ''} | added p50 over direct ${addedP50.toFixed(2)} ms${c === 1 ? ' (goal ≤ 1 ms)' : ''}, over the durable proxy ${(relay.p50 - durableR.p50).toFixed(2)} ms` +
        ` | CPU/delivery durable proxy ${durableCpuUs.toFixed(0)} µs | load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
      `      relay/bare proxy ${bareRatio.toFixed(2)}× | relay/direct ${ratio.toFixed(2)}× | added p50 ${addedP50.toFixed(2)} ms p99 ${addedP99.toFixed(2)} ms over direct, p50 ${(relay.p50 - bareR.p50).toFixed(2)} ms over the bare proxy` +
        ` | CPU/delivery relay ${relayCpuUs.toFixed(0)} µs (main thread ${relayMainUs.toFixed(0)}; the rest: libuv pool, V8 GC helpers), bare proxy ${bareCpuUs.toFixed(0)} µs, bench ${benchCpuUs.toFixed(0)} µs`,
    );
    lines.push(
      `      metrics on/off: throughput ${metricsRatio.toFixed(3)}× (relay --no-metrics ${off.deliveriesPerSecond.toFixed(0)}/s p50 ${off.p50.toFixed(2)} ms, same rounds)` +
        ` | relay CPU/delivery ${relayCpuUs.toFixed(0)} µs on, ${offCpuUs.toFixed(0)} µs off (${((relayCpuUs / offCpuUs - 1) * 100).toFixed(1)}%)`,
    );
    console.log(lines.slice(-4).join('\n'));
  }
  const memBeforeBig = memKb(child.pid!);

  // One 25 MB delivery through the relay.
  const big = Buffer.alloc(BIG, 0x61);
  big.write('{"big":"', 0);
  big.write('"}', BIG - 2);
  const bigSig = sign(SECRET, big);
  const before = arrived;
  const t0 = performance.now();
  const res = await request(relayUrl, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', 'x-service-signature': bigSig, 'x-service-delivery': 'big-1' },
    body: big,
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`25 MB: HTTP ${res.statusCode}`);
  const ackMs = performance.now() - t0;
  await untilArrived(before + 1);
  const bigMs = arrivals.get('big-1')! - t0;
  const memAfterBig = memKb(child.pid!);
  const growthKb = memAfterBig.hwm - memBeforeBig.rss;
  const growthRatio = (growthKb * 1024) / BIG;
  lines.push(
    `25 MB: 200 after ${ackMs.toFixed(0)} ms, at the target after ${bigMs.toFixed(0)} ms; relay RSS ${(memBeforeBig.rss / 1024).toFixed(1)} MB → peak ${(memAfterBig.hwm / 1024).toFixed(1)} MB (growth ${(growthKb / 1024).toFixed(1)} MB = ${growthRatio.toFixed(2)}× payload)`,
  );
  console.log(lines.at(-1));
  lines.push(`relay peak RSS ${(memAfterBig.hwm / 1024).toFixed(1)} MB (after warm-up ${(memAfterWarmup.rss / 1024).toFixed(1)} MB)`);
  console.log(lines.at(-1));

  child.kill('SIGTERM');
  await once(child, 'exit');
  bare.child.kill('SIGTERM');
  await once(bare.child, 'exit');
  durable.child.kill('SIGTERM');
  await once(durable.child, 'exit');
  offChild.child.kill('SIGTERM');
  await once(offChild.child, 'exit');
  await agent.close();
  target.close();
  target.closeAllConnections();
  rmSync(work, { recursive: true, force: true });

  const c1 = results.c1 as { addedP50Ms: number } | undefined;
  const c32 = results.c32 as
    | {
        addedP50Ms: number;
        throughputRatio: number;
        relayOverBareProxy: number;
        relayOverDurableProxy: number;
        metricsOnOverOff: number;
        relayCpuUsPerDelivery: number;
        metricsOff: { relayCpuUsPerDelivery: number };
      }
    | undefined;
  if (!c1 || !c32) {
    console.log('partial run (BENCH_CONCURRENCY): targets not judged, bench/results/relay.json not written');
    return;
  }
  const targets = {
    relayOverDurableProxyC32AtLeast085: c32.relayOverDurableProxy >= 0.85,
    relayOverBareProxyC32AtLeast085: c32.relayOverBareProxy >= 0.85,
    addedP50C1AtMost1Ms: c1.addedP50Ms <= 1,
    addedP50C32AtMost5Ms: c32.addedP50Ms <= 5,
    bigRssGrowthUnder3x: growthRatio < 3,
    metricsWithin3PercentC32: c32.metricsOnOverOff >= 0.97,
    metricsCpuWithin3PercentC32: c32.relayCpuUsPerDelivery <= c32.metricsOff.relayCpuUsPerDelivery * 1.03,
  };
  console.log(
    `issue 24 goals: relay/durable proxy at c=32 ${c32.relayOverDurableProxy.toFixed(2)}× (goal ≥ 0.85×), added p50 at c=1 ${c1.addedP50Ms.toFixed(2)} ms (goal ≤ 1 ms); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('targets:', JSON.stringify(targets));
  const json = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    nproc: availableParallelism(),
    loadAverage: loadavg(),
    payloadBytes: 1024,
    ...results,
    big: { bytes: BIG, ackMs, forwardedMs: bigMs, rssBeforeKb: memBeforeBig.rss, peakRssKb: memAfterBig.hwm, growthKb, growthRatio },
    relayPeakRssKb: memAfterBig.hwm,
    targets,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/relay.json'), JSON.stringify(json, null, 2) + '\n');
  console.log('wrote bench/results/relay.json');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
