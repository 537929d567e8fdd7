// Benchmark: this checkout's relay on JetStream against another checkout's (issue 37: the move
// from the legacy `nats` client to @nats-io/transport-node + jetstream + kv), in one run. Each
// checkout's CLI is bundled with its own node_modules; each relay gets its own nats-server (R1)
// and its own three-node cluster (R3), forwards to one local app, and takes signed 1 KB
// deliveries at concurrency 16, the two checkouts alternating (in both orders) round by round so a
// drift in the machine's speed hits both alike. Prints acknowledged deliveries/s, p50 ingress
// latency and this checkout's ratio to the other's, at R1 and R3. A benchmark, not a test.
//
//   BENCH_BASELINE=/path/to/other/checkout npm run bench:nats-client
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startNats, type NatsCluster } from '../test/unit/nats/natsServers';
import { bundleCli, RELAY_READY, ROOT, spawnListening } from './relayChild';
import { CONCURRENCY, load, median, okApp, SECRET, type Side } from './relayLoad';
import { cpuMs } from './procStats';

const N = Number(process.env.BENCH_N ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const BASELINE = process.env.BENCH_BASELINE;

async function main(): Promise<void> {
  if (!BASELINE || !existsSync(join(BASELINE, 'relay/cli.ts'))) {
    console.error('usage: BENCH_BASELINE=<another checkout, with its node_modules> npm run bench:nats-client');
    process.exit(2);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'sh-bench-nats-client-'));
  mkdirSync(join(tmp, 'this'));
  mkdirSync(join(tmp, 'baseline'));
  const cli = { this: await bundleCli(join(tmp, 'this')), baseline: await bundleCli(join(tmp, 'baseline'), BASELINE) };
  const { app, appUrl } = await okApp();
  const clusters: NatsCluster[] = [];
  const clusterOf = new Map<Side, NatsCluster>();
  const start = async (name: string, which: keyof typeof cli, servers: number): Promise<Side> => {
    const nats = await startNats(servers);
    clusters.push(nats);
    const args = ['relay', '--port', '0', '--ready', 'json', '--secret', SECRET, '--forward', appUrl, '--data', mkdtempSync(join(tmp, 'd'))];
    const relay = await spawnListening([], cli[which], [...args, '--store', nats.urls], RELAY_READY, 'pipe');
    const side: Side = { name, relay, rates: [], latencies: [] };
    clusterOf.set(side, nats);
    return side;
  };
  // Pairs: [baseline, this] at R1, then at R3.
  const pairs: [Side, Side][] = [
    [await start('baseline, R1', 'baseline', 1), await start('this, R1', 'this', 1)],
    [await start('baseline, R3', 'baseline', 3), await start('this, R3', 'this', 3)],
  ];
  const sides = pairs.flat();
  const agent = new Agent({ connections: CONCURRENCY });
  try {
    for (const s of sides) await load(s, 200, agent); // warm-up
    for (const s of sides) s.latencies.length = 0;
    // On R3, a relay connected to the deliveries stream's leader saves a hop per publish: said per relay.
    const placement = new Map<Side, string>();
    for (const s of sides) placement.set(s, await leaderPlacement(s, clusterOf.get(s)!));
    // The relay process's CPU per delivery: steadier than the rate on a machine shared with other work.
    const cpu = new Map<Side, number>(sides.map((s) => [s, 0]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [a, b] of pairs)
        for (const s of round % 2 === 0 ? [a, b] : [b, a]) {
          const before = cpuMs(s.relay.child.pid!);
          s.rates.push(await load(s, N, agent));
          cpu.set(s, cpu.get(s)! + cpuMs(s.relay.child.pid!) - before);
        }
    report(pairs, (s) => (cpu.get(s)! * 1000) / (N * ROUNDS));
    for (const s of sides) console.log(`${s.name}: ${placement.get(s)}`);
  } finally {
    for (const s of sides) s.relay.child.kill('SIGKILL');
    for (const c of clusters) await c.stop();
    app.close();
    await agent.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Which server the relay is connected to, and which leads its deliveries stream. */
async function leaderPlacement(s: Side, nats: NatsCluster): Promise<string> {
  const port = /NATS JetStream at [^:\s]+:(\d+)/.exec(s.relay.err())?.[1];
  const connected = nats.nodes.find((n) => String(n.port) === port)?.name ?? `port ${port}`;
  const nc = await connect({ servers: nats.urls.split(',') });
  try {
    const leader = (await (await jetstreamManager(nc)).streams.info('SH_DELIVERIES')).cluster?.leader ?? 'n/a';
    return `connected to ${connected}, the deliveries stream's leader is ${leader}`;
  } finally {
    await nc.close();
  }
}

function report(pairs: [Side, Side][], cpuUsPerDelivery: (s: Side) => number): void {
  console.log(
    `relay on JetStream, this checkout against ${BASELINE}: ${N} signed 1 KB deliveries x ${ROUNDS} rounds at c=${CONCURRENCY}; nproc ${cpus().length}`,
  );
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('| relay | acknowledged/s (median) | rounds | p50 ingress ms | relay CPU µs/delivery | followers started over | this / baseline |');
  console.log('|---|---|---|---|---|---|---|');
  const rows = [];
  for (const [base, mine] of pairs) {
    const ratio = median(mine.rates) / median(base.rates);
    for (const s of [base, mine]) {
      // A stream follower that started over made a new consumer: a sign of pulls lost or stalled.
      const startedOver = (s.relay.err().match(/following \S+ again from seq \d+ \(/g) ?? []).length;
      const row = {
        relay: s.name,
        perSecond: Math.round(median(s.rates)),
        rounds: s.rates.map(Math.round),
        p50Ms: +median(s.latencies).toFixed(2),
        cpuUs: Math.round(cpuUsPerDelivery(s)),
        startedOver,
      };
      const vs = s === mine ? `${ratio.toFixed(3)}× (CPU ${(cpuUsPerDelivery(mine) / cpuUsPerDelivery(base)).toFixed(3)}×)` : '';
      rows.push({ ...row, ...(s === mine ? { ratio: +ratio.toFixed(3) } : {}) });
      console.log(`| ${row.relay} | ${row.perSecond} | ${row.rounds.join(' ')} | ${row.p50Ms} | ${row.cpuUs} | ${startedOver} | ${vs} |`);
    }
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench/results/relay-nats-client.json'), JSON.stringify({ n: N, rounds: ROUNDS, rows }, null, 2) + '\n');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
