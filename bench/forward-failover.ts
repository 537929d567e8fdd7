// Benchmark (issue 42 item 5): how long `service-hooks forward` goes without posting when the
// relay instance it is connected to is SIGKILLed. Two relay processes share one JetStream store
// (one nats-server); the app is a local HTTP server. Per round: forward connects, one delivery
// goes through, the connected instance is SIGKILLed, a delivery is posted at once to the other
// instance (answered 200), and we time from the kill to the app getting it. Two ways, in the same
// run: `--relay A,B` (forward fails over itself) and through a balancer (a TCP proxy here that
// connects each connection to the first instance that answers, A before B: what the issue's
// "0.45 s through the balancer" was). The issue saw 20.8–22.0 s with one address and no balancer
// (forward waited for the dead instance). Not a test: `npm run bench:forward-failover`.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttp, type Server } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startNats } from '../test/unit/nats/natsServers';
import { cli, spawnRelay, type RelayProcess } from '../test/unit/relay/support/helpers';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ADMIN = 'bench-failover-admin-token-0123456789';

/** A TCP balancer: each connection goes to the first upstream port that accepts it, in order. */
async function balancer(ports: number[]): Promise<{ port: number; close: () => void }> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.pause();
    const attempt = (i: number): void => {
      if (i >= ports.length) return void client.destroy();
      const up = connect({ host: '127.0.0.1', port: ports[i]! });
      up.once('error', () => attempt(i + 1));
      up.once('connect', () => {
        up.removeAllListeners('error');
        open.add(up);
        const end = () => (client.destroy(), up.destroy());
        up.on('error', end).on('close', end);
        client.on('error', end).on('close', end);
        client.pipe(up).pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as { port: number }).port, close: () => (server.close(), open.forEach((s) => s.destroy())) };
}

/** An app that counts what it gets and tells `onBody`. */
async function app(onBody: (body: string) => void): Promise<{ url: string; close: () => void }> {
  const server: Server = createHttp((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (res.end('ok'), onBody(Buffer.concat(chunks).toString())));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, close: () => server.close() };
}

async function send(relay: RelayProcess, body: string): Promise<void> {
  const r = await request(`${relay.url}/hooks/default`, { method: 'POST', body });
  await r.body.dump();
  if (r.statusCode !== 200) throw new Error(`${relay.url}: ${r.statusCode}`);
}

/** One round: ms from the SIGKILL of the connected instance to the app getting a delivery posted then. */
async function round(natsUrls: string, mode: 'failover' | 'balancer', i: number): Promise<number> {
  const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
  const [a, b] = [
    await spawnRelay(['--store', natsUrls, '--data', mkdtempSync(join(tmpdir(), 'sh-bench-ff-'))], env),
    await spawnRelay(['--store', natsUrls, '--data', mkdtempSync(join(tmpdir(), 'sh-bench-ff-'))], env),
  ];
  const lb = mode === 'balancer' ? await balancer([a.port, b.port]) : undefined;
  const waiting = new Map<string, () => void>();
  const target = await app((body) => waiting.get(body)?.());
  const arrives = (body: string) => new Promise<void>((r) => waiting.set(body, r));
  const relayArgs = lb ? [`ws://127.0.0.1:${lb.port}`] : [a.url.replace('http', 'ws'), b.url.replace('http', 'ws')];
  const fwd: ChildProcess = spawn(
    process.execPath,
    [
      await cli(),
      'forward',
      '--relay',
      relayArgs.join(','),
      '--to',
      target.url,
      '--output',
      'text',
      '--state',
      join(mkdtempSync(join(tmpdir(), 'sh-bench-ffs-')), 's.json'),
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    },
  );
  let err = '';
  const connected = new Promise<void>((r) => fwd.stderr!.on('data', (c: Buffer) => ((err += c.toString()), /connected/.test(err) && r())));
  await connected;
  const warm = `{"warm":${i}}`;
  const warmed = arrives(warm);
  await send(a, warm);
  await warmed;
  const next = `{"next":${i}}`;
  const got = arrives(next);
  const killed = performance.now();
  a.child.kill('SIGKILL');
  await send(b, next);
  await got;
  const ms = performance.now() - killed;
  fwd.kill('SIGKILL');
  await b.stop('SIGKILL');
  await a.exited;
  lb?.close();
  target.close();
  return ms;
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const nats = await startNats(1);
  try {
    const figures: Record<'failover' | 'balancer', number[]> = { failover: [], balancer: [] };
    for (let i = 0; i < ROUNDS; i++) for (const mode of ['failover', 'balancer'] as const) figures[mode].push(await round(nats.urls, mode, i));
    const show = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    const [f, lb] = [median(figures.failover), median(figures.balancer)];
    console.log(`SIGKILL of the connected instance → next delivery posted by forward (${ROUNDS} rounds, ms)`);
    console.log(`  --relay A,B (fails over itself):  median ${f.toFixed(0)} ms  [${show(figures.failover)}]`);
    console.log(`  through a balancer (baseline):    median ${lb.toFixed(0)} ms  [${show(figures.balancer)}]`);
    console.log(`  ratio --relay A,B / balancer: ${(f / lb).toFixed(2)}; before (issue 42, one address, no balancer): 20,800–22,000 ms`);
  } finally {
    await nats.stop();
  }
}

void main().then(
  () => process.exit(0),
  (err: Error) => (console.error(err), process.exit(1)),
);
