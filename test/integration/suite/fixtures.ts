// The servers the suite starts itself, in-process, on port 0: the service emulator, the relay,
// and a local "app" the relay forwards to. Adapters over the emulator's and relay's library entries.
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startEmulator } from '../../../relay/emulator';
import { startRelay } from '../../../relay/server';

export interface Emulator {
  url: string;
  /** Fires after each delivery attempt the emulator has recorded (its `onDeliveryAttempt` hook). */
  onAttempt(listener: () => void): { dispose(): void };
  close(): Promise<void>;
}

export interface Relay {
  port: number;
  token: string;
  dataDir: string;
  close(): Promise<void>;
}

export interface AppRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface App {
  url: string;
  requests: AppRequest[];
  /** Resolves with the next request received (or one already received after `since`). */
  next(since?: number): Promise<AppRequest>;
  close(): Promise<void>;
}

export const TOKEN = 'integration-token';
export const HOOK_SECRET = 'integration-hook-secret';

/** An in-process emulator; `deliveriesEndpoint: false` serves only the documented endpoints. */
export async function startEmulatorFixture(opts: { deliveriesEndpoint?: boolean } = {}): Promise<Emulator> {
  const dir = mkdtempSync(join(tmpdir(), 'sh-emu-'));
  const attempts = new EventEmitter();
  const emu = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    token: TOKEN,
    state: join(dir, 'state.json'),
    ...opts,
    onDeliveryAttempt: () => attempts.emit('attempt'),
  });
  return {
    url: emu.url.replace(/\/+$/, ''),
    onAttempt(listener) {
      attempts.on('attempt', listener);
      return { dispose: () => attempts.off('attempt', listener) };
    },
    close: () => emu.close(),
  };
}

/** A call to the emulator's API with the suite's token; fails the test on a non-2xx answer. */
export async function emulatorCall<T>(emulator: Emulator, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(emulator.url + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function startRelayFixture(forwardTo: string): Promise<Relay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sh-relay-'));
  const relay = await startRelay({ port: 0, host: '127.0.0.1', dataDir, secrets: [HOOK_SECRET], forward: [forwardTo] } as Parameters<typeof startRelay>[0]);
  const r = relay as unknown as { port: number; token: string; close(): Promise<void> };
  return { port: r.port, token: r.token, dataDir, close: () => r.close() };
}

export async function startApp(): Promise<App> {
  const requests: AppRequest[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    requests,
    async next(since = requests.length) {
      while (requests.length <= since) await new Promise<void>((r) => waiters.push(r));
      return requests[since]!;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Waits for `event` until `check` returns a value (bounded: rejects after `limit` events). */
export async function until<T>(
  event: (listener: () => void) => { dispose(): void },
  check: () => T | undefined | Promise<T | undefined>,
  what: string,
  limit = 500,
): Promise<T> {
  const first = await check();
  if (first !== undefined) return first;
  return new Promise<T>((resolve, reject) => {
    let n = 0;
    let busy = false;
    const sub = event(() => {
      if (busy) return;
      busy = true;
      void Promise.resolve(check()).then(
        (v) => {
          busy = false;
          if (v !== undefined) {
            sub.dispose();
            resolve(v);
          } else if (++n >= limit) {
            sub.dispose();
            reject(new Error(`gave up waiting for ${what}`));
          }
        },
        (err) => {
          sub.dispose();
          reject(err);
        },
      );
    });
  });
}

export interface Proxy {
  url: string;
  /** Stops accepting and drops open connections: the service looks down. */
  down(): Promise<void>;
  /** Listens again on the same port: the service is back. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A TCP proxy on a fixed port in front of `target` (http://127.0.0.1:port) that can be taken down and up again. */
export async function startProxy(target: string): Promise<Proxy> {
  const { createServer: createTcp, connect } = await import('node:net');
  const targetPort = Number(new URL(target).port);
  const sockets = new Set<import('node:net').Socket>();
  let server = createTcp();
  const listen = async (port: number) => {
    server = createTcp((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  };
  const port = await listen(0);
  const down = async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return { url: `http://127.0.0.1:${port}`, down, up: async () => void (await listen(port)), close: () => down().catch(() => undefined) };
}
