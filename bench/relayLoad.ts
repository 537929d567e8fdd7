// Bench helper: signed 1 KB deliveries posted to a relay child at a fixed concurrency, timed.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { request, type Agent } from 'undici';
import { sign } from '../src/core/signing';
import type { Child } from './relayChild';

export const SECRET = 'bench-secret-0123456789';
export const CONCURRENCY = 16;

/** One relay under load: its acknowledged deliveries/s per round and every post's latency (ms). */
export interface Side {
  name: string;
  relay: Child;
  rates: number[];
  latencies: number[];
}

/** Posts `n` deliveries at CONCURRENCY; returns acknowledged deliveries per second. */
export async function load(side: Side, n: number, agent: Agent): Promise<number> {
  const url = `http://127.0.0.1:${side.relay.port}/hooks/default`;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const body = Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(1000) }));
      const s = performance.now();
      const r = await request(url, {
        method: 'POST',
        body,
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-service-signature': sign(SECRET, body) },
      });
      await r.body.dump();
      if (r.statusCode !== 200) throw new Error(`${side.name}: ${r.statusCode}`);
      side.latencies.push(performance.now() - s);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (n / (performance.now() - t0)) * 1000;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** The local app the relays forward to: answers every post 200 "ok"; its URL is …/hook. */
export async function okApp(): Promise<{ app: Server; appUrl: string }> {
  const app = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-length': '2' }).end('ok'));
  });
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
  return { app, appUrl: `http://127.0.0.1:${(app.address() as { port: number }).port}/hook` };
}
