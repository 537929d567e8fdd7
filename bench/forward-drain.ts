// Benchmark: `service-hooks forward` after the app comes back (issue 27 §1: "drains within 2 s of
// the app's return"). The app's port is closed; N deliveries reach the relay and forward pauses on
// the first (connection refused); then the app listens again on the same port and we time, from
// that moment, the first and the last delivery's arrival. Rounds in a row; prints each and the
// median. Not a test (the unit test forward-rules.test.ts prints one such figure too).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startRelay } from '../relay/server';
import { childOutput } from '../test/support/childOutput';
import { freePort } from '../test/support/freePort';
import { bundleCli } from './relayChild';

const N = Number(process.env.BENCH_N ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

async function round(cli: string, i: number): Promise<{ firstMs: number; lastMs: number }> {
  const relay = await startRelay({ port: 0, dataDir: mkdtempSync(join(tmpdir(), 'sh-bench-fd-')), forward: [] });
  const port = await freePort();
  const fwd = spawn(
    process.execPath,
    [
      cli,
      'forward',
      '--relay',
      `ws://127.0.0.1:${relay.port}`,
      '--token',
      relay.token,
      '--to',
      `http://127.0.0.1:${port}/hook`,
      '--state',
      join(mkdtempSync(join(tmpdir(), 'sh-bench-fs-')), 's.json'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const { saw } = childOutput(fwd, 'forward');
  await saw(/connected/);
  for (let k = 0; k < N; k++) await (await request(`${relay.url}/hooks/default`, { method: 'POST', body: `{"k":${k}}` })).body.dump();
  await saw(/unreachable/);
  let got = 0;
  let first = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const app: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (got++ === 0) first = performance.now();
      if (got === N) done();
    });
  });
  app.listen(port, '127.0.0.1');
  await once(app, 'listening');
  const upAt = performance.now();
  await all;
  const lastMs = performance.now() - upAt;
  fwd.kill('SIGTERM');
  await once(fwd, 'exit');
  app.closeAllConnections();
  app.close();
  await relay.close();
  const r = { firstMs: first - upAt, lastMs };
  console.log(`round ${i + 1}: first delivery ${r.firstMs.toFixed(0)} ms, all ${N} ${r.lastMs.toFixed(0)} ms after the app's port opened`);
  return r;
}

async function main(): Promise<void> {
  const cli = await bundleCli(mkdtempSync(join(tmpdir(), 'sh-bench-cli-')));
  const results: { firstMs: number; lastMs: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await round(cli, i));
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `median: first ${median(results.map((r) => r.firstMs)).toFixed(0)} ms, all ${N} ${median(results.map((r) => r.lastMs)).toFixed(0)} ms (probe every 200 ms; goal: under 2 s)`,
  );
}

void main();
