// Benchmark beside bench:public (issue 38, Performance): the CPU per delivery of `service-hooks
// forward` with event filters and three routes, against today's single target, as a ratio
// measured in one run. One relay (plain HTTP, file journal) and two forward children on the same
// channel and the same deliveries at the same time: A `--to URL`, B `--events push,issue,
// pull_request --route push=… --route issue=… --route pull_request=…` (every delivery routed, so
// both post each one). The deliveries are signed 1 KB bodies of the three events, sent by 16
// senders; each round waits until the app has every delivery from both. CPU from /proc.
// Goal: B/A ≤ 1.05. Not a test.
//   BENCH_N (deliveries per round, default 3,000), BENCH_ROUNDS (default 3)
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { sign } from '../src/core/signing';
import { tokenFilePath } from '../src/core/relay/ready';
import { childOutput } from '../test/support/childOutput';
import { Signal } from '../test/support/until';
import { cpuMs } from './procStats';
import { bundleCli, listenLocal, RELAY_READY, spawnListening } from './relayChild';

const SECRET = 'bench-filters-secret-0123456789';
const N = Number(process.env.BENCH_N ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const EVENTS = ['push', 'issue', 'pull_request'] as const;

const counts = new Map<string, number>();
const answered = new Signal();
const app = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const who = req.url === '/single' ? 'single' : 'routed';
    counts.set(who, (counts.get(who) ?? 0) + 1);
    res.writeHead(200, { 'content-length': '2' }).end('ok');
    answered.wake();
  });
});

const until = (pred: () => boolean): Promise<unknown> => answered.until(pred, 'the apps', Infinity);

function forwarder(cli: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, 'forward', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return childOutput(child, 'forward')
    .saw(/connected/)
    .then(() => child);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'sh-bench-filters-'));
  const cli = await bundleCli(work);
  const base = await listenLocal(app, '');
  const data = join(work, 'relay');
  const relay = await spawnListening([], cli, ['relay', '--port', '0', '--ready', 'json', '--data', data], RELAY_READY);
  const relayUrl = `http://127.0.0.1:${relay.port}`;
  const admin = readFileSync(tokenFilePath(data), 'utf8').trim();
  const created = await request(`${relayUrl}/api/channels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'dev', secrets: [SECRET] }),
  });
  await created.body.text();
  const common = ['--relay', relayUrl, '--token', admin, '--channel', 'dev'];
  const single = await forwarder(cli, [...common, '--to', `${base}/single`, '--state', join(work, 'a.json')]);
  const routed = await forwarder(cli, [
    ...common,
    '--events', EVENTS.join(','),
    ...EVENTS.flatMap((e) => ['--route', `${e}=${base}/${e}`]),
    '--state', join(work, 'b.json'),
  ]); // prettier-ignore
  const body = Buffer.alloc(1024, 'x');
  const signature = sign(SECRET, body);
  let sent = 0;
  const send = async (n: number) => {
    for (let i = n; i < N; i += 16) {
      const r = await request(`${relayUrl}/hooks/dev`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-event': EVENTS[i % 3]!,
          'x-service-delivery': `d-${sent++}`,
          'x-service-signature': signature,
        },
        body,
      });
      await r.body.text();
    }
  };
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    counts.clear();
    const [a0, b0] = [cpuMs(single.pid!), cpuMs(routed.pid!)];
    await Promise.all(Array.from({ length: 16 }, (_, n) => send(n)));
    await until(() => (counts.get('single') ?? 0) >= N && (counts.get('routed') ?? 0) >= N);
    const [a, b] = [cpuMs(single.pid!) - a0, cpuMs(routed.pid!) - b0];
    ratios.push(b / a);
    console.log(
      `round ${round}: single target ${((a * 1000) / N).toFixed(1)} µs CPU/delivery, filters + 3 routes ${((b * 1000) / N).toFixed(1)} µs; ratio ${(b / a).toFixed(3)} (load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    );
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  console.log(
    `forward with filters and three routes / single target, CPU per delivery: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} (goal ≤ 1.05)`,
  );
  for (const c of [single, routed, relay.child]) c.kill('SIGTERM');
  await Promise.all([single, routed, relay.child].map((c) => (c.exitCode === null && c.signalCode === null ? once(c, 'exit') : undefined)));
  app.close();
  app.closeAllConnections();
  rmSync(work, { recursive: true, force: true });
}

void main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
