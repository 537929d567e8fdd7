// Benchmark: the relay on its two stores, in one run. Signed 1 KB deliveries are posted at
// concurrency 16 through the relay (verify, store, forward to a local app) with (a) the file
// journal, (b) NATS JetStream on one nats-server, (c) NATS JetStream on a three-node cluster (R3),
// alternating in rounds so a drift in the machine's speed hits every store alike. Prints
// acknowledged deliveries/s and p50 ingress latency per store, and each JetStream store's ratio to
// the file journal. Then the stores without HTTP (./storePublish.ts): JetStream publishes one at
// a time, 16 callers, and pipelined (batches published back to back, acks awaited together), at
// R1 and R3, against the file journal; issue 24's goals: R1 as fast as the file journal, R3 at
// least 0.75×. A benchmark, not a test: writes bench/results/relay-stores.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { startNats, type NatsCluster } from '../test/unit/nats/natsServers';
import { bundleCli, RELAY_READY, ROOT, spawnListening } from './relayChild';
import { fileJournalRate, jetStreamRates, type PublishRates } from './storePublish';
import { CONCURRENCY, load, median, okApp, SECRET, type Side } from './relayLoad';

const N = Number(process.env.BENCH_N ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const pids = (c: NatsCluster) => c.nodes.flatMap((n) => (n.process?.pid ? [n.process.pid] : []));

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'sh-bench-stores-'));
  const cli = await bundleCli(tmp);
  const { app, appUrl } = await okApp();
  const clusters: NatsCluster[] = [await startNats(1), await startNats(3)];
  const start = (name: string, extra: string[]) =>
    spawnListening(
      [],
      cli,
      ['relay', '--port', '0', '--ready', 'json', '--secret', SECRET, '--forward', appUrl, '--data', mkdtempSync(join(tmp, 'd')), ...extra],
      RELAY_READY,
    ).then((relay): Side => ({ name, relay, rates: [], latencies: [] }));
  const sides = [
    await start('file journal', []),
    await start('JetStream, 1 server', ['--store', clusters[0]!.urls]),
    await start('JetStream, 3 servers (R3)', ['--store', clusters[1]!.urls]),
  ];
  const agent = new Agent({ connections: CONCURRENCY });
  try {
    for (const s of sides) await load(s, 200, agent); // warm-up
    for (const s of sides) s.latencies.length = 0;
    for (let round = 0; round < ROUNDS; round++) for (const s of sides) s.rates.push(await load(s, N, agent));
    const publish = [
      await fileJournalRate(N * ROUNDS),
      ...(await jetStreamRates(clusters[0]!.urls, 1, N * ROUNDS, pids(clusters[0]!))),
      ...(await jetStreamRates(clusters[1]!.urls, 3, N * ROUNDS, pids(clusters[1]!))),
    ];
    report(sides, publish);
  } finally {
    for (const s of sides) s.relay.child.kill('SIGKILL');
    for (const c of clusters) await c.stop();
    app.close();
    await agent.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function report(sides: Side[], publish: PublishRates[]): void {
  const base = median(sides[0]!.rates);
  const rows = sides.map((s) => ({
    store: s.name,
    perSecond: Math.round(median(s.rates)),
    p50Ms: +median(s.latencies).toFixed(2),
    ratioToFile: +(median(s.rates) / base).toFixed(2),
  }));
  console.log(`relay stores: ${N} signed 1 KB deliveries x ${ROUNDS} rounds at c=${CONCURRENCY}; nproc ${cpus().length}`);
  console.log('| store | acknowledged/s (median) | p50 ingress ms | vs file journal |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.store} | ${r.perSecond} | ${r.p50Ms} | ${r.ratioToFile}x |`);
  const file = publish[0]!.perSecond;
  const goal = (p: PublishRates) => (p.store.endsWith('R1') ? ' (goal 1.00×)' : p.store.endsWith('R3') ? ' (goal ≥ 0.75×)' : '');
  console.log(
    `\nthe stores without HTTP: ${N * ROUNDS} messages of 1 KB each, one connection; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('| store | how | messages/s | vs file journal |');
  console.log('|---|---|---|---|');
  for (const p of publish)
    console.log(`| ${p.store} | ${p.mode} | ${p.perSecond.toFixed(0)} | ${(p.perSecond / file).toFixed(2)}×${p.mode.startsWith('pipelined') ? goal(p) : ''} |`);
  // The ablation: what the servers and the client spend per message bounds the rate on this
  // machine's cores, whatever the client does (every side shares the same nproc cores).
  for (const p of publish.filter((x) => x.cpuUs)) {
    const perMessage = p.cpuUs!.servers + p.cpuUs!.client;
    const ceiling = (cpus().length * 1e6) / perMessage;
    console.log(
      `${p.store}, ${p.mode}: the servers use ${p.cpuUs!.servers.toFixed(0)} µs and the client ${p.cpuUs!.client.toFixed(0)} µs of CPU per message: at most ${ceiling.toFixed(0)}/s on ${cpus().length} cores = ${(ceiling / file).toFixed(2)}× the file journal${goal(p)}`,
    );
  }
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench', 'results', 'relay-stores.json'),
    JSON.stringify({ nproc: cpus().length, loadAverage: loadavg(), n: N, rounds: ROUNDS, concurrency: CONCURRENCY, rows, publish }, null, 2) + '\n',
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
