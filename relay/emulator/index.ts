// The service emulator: a stand-in for the documented service (spec §4) on 127.0.0.1, with the
// delivery engine (engine.ts), the store that owns the data (store.ts), the route table (routes.ts)
// with its handlers (handlers/*) behind the dispatch (router.ts), the demo data (demo.ts) and an
// optional state file (persist.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listen, sendError } from '../shared/http';
import { DeliveryEngine, type RetryScheduled } from './engine';
import { checkStateWritable, loadState, StateWriter } from './persist';
import { createRouter } from './router';
import { EmulatorStore, MAX_DELIVERIES_PER_WEBHOOK } from './store';
import type { DeliveryAttempt, DeliveryRecord } from './types';
import { DEFAULT_DEMO_RELAY_URL, seedDemo } from './demo';
import { DEFAULT_SERVICE_PORT } from '../../src/core/defaults';

export { RETRY_SCHEDULE_MS, EVENT_HEADER, DELIVERY_HEADER, USER_AGENT, type RetryScheduled } from './engine';
export { DEFAULT_DEMO_RELAY_URL, DEMO_SECRET } from './demo';
export type { DeliveryAttempt, DeliveryDetail, DeliveryRecord, IssueRecord, WebhookRecord } from './types';

/** Request bodies above this many bytes get 413 (the spec states no limit; this is the emulator's). */
export const EMULATOR_MAX_BODY = 1024 * 1024;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
export const DEFAULT_CONCURRENCY = 8;

export interface EmulatorOptions {
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The API token every /api/v1 request must carry as a Bearer token. */
  token: string;
  /** State file: loaded at start, rewritten atomically (mode 0600) after changes. */
  state?: string;
  /** Speeds the retry schedule up by this factor: delays are divided by it (1000: one minute becomes 60 ms). Default 1. */
  timeScale?: number;
  /** Seed org acme, repo widgets and two webhooks when the state is empty, and fire one push. */
  demo?: boolean;
  demoRelayUrl?: string;
  /** Per-attempt delivery time-out (default 10 s). */
  deliveryTimeoutMs?: number;
  /** Delivery attempts in flight at once (default 8). */
  concurrency?: number;
  /** Request body limit in bytes (default 1 MiB). */
  maxBody?: number;
  /** Serve the deliveries listing, an emulator extension (default true). false: only the documented endpoints. */
  deliveriesEndpoint?: boolean;
  /** Deliveries kept per webhook, oldest dropped first (default 500; one with a retry due is kept). */
  maxDeliveriesPerWebhook?: number;
  /** How long ping and retry wait for their attempt before answering (default 5 s). */
  replyWaitMs?: number;
  /** Log lines (requests and delivery attempts; never the token or a secret). */
  log?: (line: string) => void;
  now?: () => Date;
  /** Told after each recorded delivery attempt (tests await these instead of sleeping). */
  onDeliveryAttempt?: (record: DeliveryRecord, attempt: DeliveryAttempt) => void;
  /** Told when an automatic retry is scheduled, with the schedule's delay and the scaled one. */
  onRetryScheduled?: (info: RetryScheduled) => void;
}

export interface EmulatorServer {
  url: string;
  port: number;
  host: string;
  /** Stops listening, cancels timers and in-flight attempts, writes the state file. */
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions): Promise<EmulatorServer> {
  if (typeof opts.token !== 'string' || opts.token.length === 0) throw new TypeError('startEmulator: token is required');
  const timeScale = opts.timeScale ?? 1;
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new TypeError('startEmulator: timeScale must be a positive number');
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? (() => {});
  const now = opts.now ?? (() => new Date());
  const loaded = opts.state ? loadState(opts.state) : undefined;
  if (opts.state) checkStateWritable(opts.state);
  let writer: StateWriter | undefined;
  const store = new EmulatorStore(loaded, {
    maxDeliveries: opts.maxDeliveriesPerWebhook ?? MAX_DELIVERIES_PER_WEBHOOK,
    persist: () => writer?.changed(),
  });
  if (opts.state) writer = new StateWriter(opts.state, () => store.snapshot(), log);
  const engine = new DeliveryEngine({
    store,
    now,
    timeScale,
    timeoutMs: opts.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
    concurrency: Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY),
    log,
    onAttempt: opts.onDeliveryAttempt,
    onRetryScheduled: opts.onRetryScheduled,
  });
  let selfUrl = '';
  const server = httpServer(
    createRouter({
      store,
      engine,
      token: opts.token,
      maxBody: opts.maxBody ?? EMULATOR_MAX_BODY,
      replyWaitMs: opts.replyWaitMs ?? 5_000,
      deliveriesEndpoint: opts.deliveriesEndpoint ?? true,
      now,
      selfUrl: () => selfUrl,
      log,
    }),
    log,
  );
  const port = await listenOn(server, opts.port ?? DEFAULT_SERVICE_PORT, host).catch(async (err: Error) => {
    await engine.close();
    throw err;
  });
  const urlHost = host.includes(':') ? `[${host}]` : host;
  selfUrl = `http://${urlHost === '0.0.0.0' ? '127.0.0.1' : urlHost}:${port}`;

  engine.resume(); // before seeding: the demo's first attempts are queued by create()
  if (opts.demo) seedDemo(store, engine, { selfUrl, relayUrl: opts.demoRelayUrl ?? DEFAULT_DEMO_RELAY_URL, now: now(), log });

  let closing: Promise<void> | undefined;
  const close = async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    server.closeIdleConnections();
    await engine.close();
    server.closeAllConnections();
    await closed;
    await writer?.close();
  };
  return { url: selfUrl, port, host, close: () => (closing ??= close()) };
}

/** The HTTP server over the router: an unexpected error answers 500 (or drops a reply already started). */
function httpServer(route: (req: IncomingMessage, res: ServerResponse) => Promise<void>, log: (line: string) => void): Server {
  const server = createServer((req, res) => {
    route(req, res).catch((err: Error) => {
      log(`internal error on ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) sendError(res, 500, 'internal error');
      else res.destroy();
    });
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  return server;
}

/** Listens; resolves with the port (the one picked for port 0). */
async function listenOn(server: Server, port: number, host: string): Promise<number> {
  try {
    return await listen(server, port, host);
  } catch (err) {
    throw new Error(`cannot listen on ${host}:${port}: ${(err as Error).message}`, { cause: err });
  }
}
