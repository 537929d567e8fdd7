// Relay at scale: journals of 10k, 50k and 100k ~10 KB deliveries (written through the store, each
// with a forward attempt recorded, as after forwarding), then the real relay process on each:
// restart time (kill -9 → first /readyz 200), RSS after restart, GET /api/status and list latency
// (p50, from a keep-alive client on loopback, so HTTP is included), with growth factors between
// sizes. Writes bench/results/relay-scale.json. Needs ~1 GB free in the temp folder per size at a
// time (each journal is deleted after its measurements).
//
//   npm run bench:relay-scale [-- --sizes 10000,50000,100000 --body 10240]
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { DeliveryStore } from '../relay/server/store/store';
import { cpuMs, memKb } from './procStats';
import { freePort } from '../test/support/freePort';
import { deliveryHeaders, get, kill9, p50, ready } from './relayProbe';
import { bundleCli, ROOT } from './relayChild';
import { tokenFilePath } from '../src/core/relay/ready';

const TARGET = 'http://127.0.0.1:9/hook';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,50000,100000' }, body: { type: 'string', default: '10240' } } });
const SIZES = values.sizes!.split(',').map(Number);
const BODY = Number(values.body);

/** Writes `n` signed-looking deliveries of BODY bytes, each with one successful forward attempt. */
async function build(dir: string, n: number): Promise<number> {
  const store = await DeliveryStore.open(dir, { segmentBytes: 64 * 1024 * 1024 });
  const body = Buffer.alloc(BODY, '{"action":"opened","padding":"'.padEnd(64, 'x'));
  const started = performance.now();
  const BATCH = 128;
  for (let done = 0; done < n; done += BATCH) {
    const adds = [];
    for (let i = done; i < Math.min(n, done + BATCH); i++) {
      const headers = deliveryHeaders(i, BODY);
      adds.push(store.add({ channel: i % 10 ? 'default' : 'ci', verification: 'verified', headers, targets: [TARGET] }, body));
    }
    const entries = await Promise.all(adds);
    await Promise.all(
      entries.map((e) =>
        store.recordAttempt(
          e.summary.seq,
          { target: TARGET, at: new Date().toISOString(), status: 200, ok: true, durationMs: 2 },
          { target: TARGET, status: 'ok', lastStatus: 200, attempts: 1 },
          { lazy: true },
        ),
      ),
    );
  }
  await store.close();
  return (performance.now() - started) / 1000;
}

/** Starts the relay and resolves with the milliseconds until /readyz answers 200 (it listens earlier, answering 503 while the journal loads). */
async function start(cli: string, dir: string, port: number, agent: Agent): Promise<{ child: ChildProcess; ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, 'relay', '--port', String(port), '--data', dir, '--secret', 'bench-secret-0123456789'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`relay exited with ${child.exitCode}`);
    if (await ready(url, agent)) return { child, ms: performance.now() - t0, cpuMs: cpuMs(child.pid!) };
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Row {
  deliveries: number;
  journalMb: number;
  buildS: number;
  restartMs: number;
  restartRunsMs: number[];
  restartCpuMs: number;
  rssAfterRestartMb: number;
  rssAfterQueriesMb: number;
  statusP50Ms: number;
  /** GET /healthz p50: the same HTTP round trip with no work behind it (the floor under every figure here). */
  healthzP50Ms: number;
  listNewest50P50Ms: number;
  listOlderPageP50Ms: number;
  listOlderPageBefore: number;
  listNoMatchP50Ms: number;
}

async function measure(cli: string, n: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'sh-relay-scale-'));
  try {
    const buildS = await build(dir, n);
    const journalMb = Number(execSync(`du -sm ${dir}`).toString().split(/\s+/)[0]);
    const port = await freePort();
    const agent = new Agent({ connections: 1, pipelining: 0 });
    let { child } = await start(cli, dir, port, agent);
    const runs: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 3; i++) {
      await kill9(child);
      const r = await start(cli, dir, port, agent);
      child = r.child;
      runs.push(r.ms);
      cpu.push(r.cpuMs);
    }
    const rssAfterRestartMb = memKb(child.pid!).rss / 1024;
    const token = readFileSync(tokenFilePath(dir), 'utf8').trim();
    const base = `http://127.0.0.1:${port}`;
    const status = (await get(`${base}/api/status`, token, agent)) as { lastSeq: number };
    const before = Math.max(1, status.lastSeq - Math.min(10_000 + Math.floor(n / 4), n - 100));
    const healthzP50Ms = await p50(500, async () => void (await get(`${base}/healthz`, token, agent)));
    const statusP50Ms = await p50(500, async () => void (await get(`${base}/api/status`, token, agent)));
    const listNewest50P50Ms = await p50(200, async () => void (await get(`${base}/api/deliveries?limit=50`, token, agent)));
    const listOlderPageP50Ms = await p50(200, async () => void (await get(`${base}/api/deliveries?limit=50&before=${before}`, token, agent)));
    // Worst case: a filter nothing matches walks every row (typed arrays, no summaries built).
    const listNoMatchP50Ms = await p50(50, async () => void (await get(`${base}/api/deliveries?limit=50&status=failed`, token, agent)));
    const rssAfterQueriesMb = memKb(child.pid!).rss / 1024;
    await kill9(child);
    await agent.close();
    const restartMs = [...runs].sort((a, b) => a - b)[1]!;
    const restartCpuMs = [...cpu].sort((a, b) => a - b)[1]!;
    return {
      deliveries: n,
      journalMb,
      buildS,
      restartMs,
      restartRunsMs: runs,
      restartCpuMs,
      rssAfterRestartMb,
      rssAfterQueriesMb,
      statusP50Ms,
      healthzP50Ms,
      listNewest50P50Ms,
      listOlderPageP50Ms,
      listOlderPageBefore: before,
      listNoMatchP50Ms,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

async function main(): Promise<void> {
  const nproc = availableParallelism();
  console.log(
    `relay-scale: nproc ${nproc}, node ${process.version}, body ${BODY} B, sizes ${SIZES.join(', ')}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(execSync(`df -h ${tmpdir()}`).toString().trim());
  const tmp = mkdtempSync(join(tmpdir(), 'sh-relay-scale-cli-'));
  const cli = await bundleCli(tmp);
  const rows: Row[] = [];
  try {
    for (const n of SIZES) {
      const row = await measure(cli, n);
      rows.push(row);
      console.log(`  ${n}: built in ${f1(row.buildS)} s, restart ${f1(row.restartMs)} ms (runs ${row.restartRunsMs.map(f1).join(', ')})`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (wall times include waiting for a CPU on a shared machine; CPU time does not)`,
  );
  console.log(
    '\n| deliveries | journal | restart (kill -9 → /readyz, median of 3) | restart CPU time (user+sys) | RSS after restart | RSS after queries | GET /api/status p50 | GET /healthz p50 (HTTP floor) | list newest 50 p50 | list older page p50 | list no-match filter p50 |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.deliveries.toLocaleString('en')} | ${r.journalMb} MB | ${f1(r.restartMs)} ms | ${f1(r.restartCpuMs)} ms | ${f1(r.rssAfterRestartMb)} MB | ${f1(r.rssAfterQueriesMb)} MB | ${f2(r.statusP50Ms)} ms | ${f2(r.healthzP50Ms)} ms | ${f2(r.listNewest50P50Ms)} ms | ${f2(r.listOlderPageP50Ms)} ms | ${f2(r.listNoMatchP50Ms)} ms |`,
    );
  }
  const growth = rows.slice(1).map((r) => {
    const b = rows[0]!;
    return {
      from: b.deliveries,
      to: r.deliveries,
      size: r.deliveries / b.deliveries,
      restart: r.restartMs / b.restartMs,
      restartCpu: r.restartCpuMs / b.restartCpuMs,
      rss: r.rssAfterRestartMb / b.rssAfterRestartMb,
      status: r.statusP50Ms / b.statusP50Ms,
      listNewest: r.listNewest50P50Ms / b.listNewest50P50Ms,
      listOlder: r.listOlderPageP50Ms / b.listOlderPageP50Ms,
    };
  });
  console.log('\ngrowth against the smallest size:');
  for (const g of growth) {
    console.log(
      `  ${g.from} → ${g.to} (×${f1(g.size)} deliveries): restart ×${f2(g.restart)} (CPU ×${f2(g.restartCpu)}), RSS ×${f2(g.rss)}, status ×${f2(g.status)}, list newest ×${f2(g.listNewest)}, list older ×${f2(g.listOlder)}`,
    );
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const out = join(ROOT, 'bench/results/relay-scale.json');
  writeFileSync(
    out,
    JSON.stringify({ date: new Date().toISOString(), nproc, loadavg: loadavg(), node: process.version, bodyBytes: BODY, rows, growth }, null, 2) + '\n',
  );
  console.log(`\nwrote ${out}`);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
