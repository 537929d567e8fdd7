// What the scale benches (relay-scale.ts, relay-million.ts) ask of a relay process from outside:
// the headers of the deliveries they journal, a port for it, whether it serves (/healthz), a GET
// of its API, kill -9, and a p50 of a call.
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';

/** Whether the relay at `url` answers GET /healthz 200 (listening: it may still be loading its store). */
export function healthy(url: string, agent: Agent): Promise<boolean> {
  return answers200(`${url}/healthz`, agent);
}

/** Whether the relay at `url` answers GET /readyz 200 (its store loaded: it accepts deliveries). */
export function ready(url: string, agent: Agent): Promise<boolean> {
  return answers200(`${url}/readyz`, agent);
}

async function answers200(url: string, agent: Agent): Promise<boolean> {
  try {
    const res = await request(url, { dispatcher: agent });
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

export async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** The median time of `n` sequential calls of `fn`, in ms. */
export async function p50(n: number, fn: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function get(url: string, token: string, agent: Agent): Promise<unknown> {
  const res = await request(url, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${await res.body.text()}`);
  return res.body.json();
}

/** The `i`th bench delivery's id: a lowercase UUID, as the service's are (the index keeps those in 16 bytes). */
export function deliveryId(i: number): string {
  return `7f1c2d3e-4a5b-4c9d-8e1f-${i.toString(16).padStart(12, '0')}`;
}

/** The raw headers of the `i`th bench delivery of `size` body bytes, as the service sends them (one in four an `issues` event). */
export function deliveryHeaders(i: number, size: number): [string, string][] {
  return [
    ['Host', '127.0.0.1:8788'],
    ['User-Agent', 'Service-Hookshot/1.0'],
    ['Content-Type', 'application/json'],
    ['Content-Length', String(size)],
    ['X-Service-Event', i % 4 ? 'push' : 'issues'],
    ['X-Service-Delivery', deliveryId(i)],
    ['X-Service-Signature', `sha256=${'ab'.repeat(32)}`],
  ];
}
