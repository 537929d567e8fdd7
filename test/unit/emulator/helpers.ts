// Test helpers for the emulator: an in-process emulator on port 0 with its attempt hooks recorded,
// a JSON API caller, and a receiver whose answer (status, or hanging) each test controls.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { request } from 'undici';
import { startEmulator, type EmulatorOptions, type EmulatorServer, type RetryScheduled } from '../../../relay/emulator';
import type { DeliveryAttempt, DeliveryRecord } from '../../../relay/emulator/types';
import { makeTempDir } from '../tempDirs';
import { Signal } from '../../support/until';

export const TOKEN = 'emulator-test-token';

export function tempDir(prefix = 'sh-emu-test-'): string {
  return makeTempDir(prefix);
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface Harness {
  emu: EmulatorServer;
  url: string;
  attempts: { record: DeliveryRecord; attempt: DeliveryAttempt }[];
  scheduled: RetryScheduled[];
  signal: Signal;
  logs: string[];
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Resolves with the delivery record once it has `n` attempts. */
  attemptsOf(deliveryId: string, n: number): Promise<DeliveryRecord>;
  close(): Promise<void>;
}

export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const h: Record<string, string> = { authorization: `Bearer ${TOKEN}`, ...headers };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    h['content-type'] ??= 'application/json';
  }
  for (const [k, v] of Object.entries(h)) if (v === '') delete h[k];
  const res = await request(base + path, { method: method as 'GET', headers: h, body: payload });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

export async function start(opts: Partial<EmulatorOptions> = {}): Promise<Harness> {
  const attempts: Harness['attempts'] = [];
  const scheduled: RetryScheduled[] = [];
  const logs: string[] = [];
  const signal = new Signal();
  const emu = await startEmulator({
    port: 0,
    token: TOKEN,
    log: (l) => {
      logs.push(l);
      signal.wake();
    },
    ...opts,
    onDeliveryAttempt: (record, attempt) => {
      attempts.push({ record, attempt });
      opts.onDeliveryAttempt?.(record, attempt);
      signal.wake();
    },
    onRetryScheduled: (info) => {
      scheduled.push(info);
      opts.onRetryScheduled?.(info);
      signal.wake();
    },
  });
  const h: Harness = {
    emu,
    url: emu.url,
    attempts,
    scheduled,
    signal,
    logs,
    api: (method, path, body, headers) => call(emu.url, method, path, body, headers),
    attemptsOf: (id, n) =>
      signal.until(() => {
        const last = attempts.filter((a) => a.record.id === id).pop();
        return last && last.record.attempts.length >= n ? last.record : undefined;
      }, `${n} attempts of ${id}`),
    close: () => emu.close(),
  };
  return h;
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests get: a status, or 'hang' (never answered until close). */
  mode: number | 'hang';
  signal: Signal;
  close(): Promise<void>;
}

export async function startReceiver(mode: number | 'hang' = 200): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const signal = new Signal();
  const r: Receiver = {
    url: '',
    received: [],
    mode,
    signal,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) });
      if (r.mode === 'hang') hanging.push(res);
      else res.writeHead(r.mode, { 'content-type': 'text/plain' }).end('ok');
      signal.wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  r.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return r;
}

/** Creates a webhook and returns its record. */
export async function addHook(h: Harness, repo: string, url: string, events: string[], secret?: string): Promise<{ id: string }> {
  const res = await h.api('POST', `/api/v1/repos/${repo}/webhooks`, { url, content_type: 'json', events, ...(secret ? { secret } : {}) });
  if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${res.text}`);
  return res.json;
}

export async function fire(h: Harness, repo: string, event: string, payload?: unknown): Promise<{ id: string; webhook_id: string }[]> {
  const res = await h.api('POST', `/_emulator/repos/${repo}/events`, payload === undefined ? { event } : { event, payload });
  if (res.status !== 202) throw new Error(`fire: ${res.status} ${res.text}`);
  return res.json.deliveries;
}

/** The CLI bundle, built once per test run and shared with the relay and CLI tests. */
export { cli as cliBundle } from '../relay/support/helpers';
