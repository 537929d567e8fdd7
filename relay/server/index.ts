// The relay server: wiring of ingress (./ingress), the REST API (./api), the WebSocket subscribers
// (./subscribers) and forwarding (./forwarder) over the journaled store (./store).
import { chmodSync, mkdirSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { refuseRaw, sendError, sendJson } from '../shared/http';
import { SourceAllowList } from './access';
import { createApi } from './api';
import { openChannelDirectory, type ChannelDirectory } from './channelDirectory';
import type { ChannelRegistry } from './channelRegistry';
import { clientErrors, type ClientErrors } from './clientErrors';
import { ChannelConfigs, type ChannelDefaults } from './channels';
import { Forwarder, DEFAULT_RETRY_SCHEDULE_MS } from './forwarder';
import { createIngress, hookChannel, PLAIN_HOOK_RE, type IngressHandler } from './ingress';
import { lockDataDir, type DataLock } from './dataLock';
import { listen, stopper } from './lifecycle';
import { RejectLimiter, type RejectLimits } from './rateLimit';
import { DeliveryStore } from './store';
import { recordSubscriberForward } from './subscriberForward';
import type { SharedForwarding } from './nats/sharedForwarding';
import type { NatsChoice } from './nats/wiring';
import { authenticate } from './scope';
import type { RelayStore } from './storeTypes';
import { SubscriberHub, type SubscriberOptions } from './subscribers';
import { createHttpServer, useTls, type TlsMaterial } from './tls';
import { ensureToken } from './token';
import { WS_PATH, type ForwardStatus } from '../../src/core/relay/protocol';
import { DEFAULT_RELAY_PORT } from '../../src/core/defaults';

export { CIDR_PRESETS } from './access';
export { CHANNEL_RE, type ChannelConfig } from './channels';
export { DataDirLockedError, LOCK_FILE } from './dataLock';
export { RelayConfigError } from './errors';
import { StoreUnavailableError } from './errors';
export { DEFAULT_RETRY_SCHEDULE_MS } from './forwarder';
export { DEFAULT_REJECT_LIMITS, type RejectLimits } from './rateLimit';
export { REJECTED_BODY_KEEP } from './rejected';
export { ensureToken } from './token';

export const DEFAULT_DATA_DIR = join(homedir(), '.service-hooks', 'relay');
export const DEFAULT_MAX_BODY = 25 * 1024 * 1024;

export interface RelayOptions extends ChannelDefaults {
  port?: number;
  host?: string;
  /** Default ~/.service-hooks/relay. */
  dataDir?: string;
  /** CIDRs or presets (`service`, `loopback`); empty: every source is accepted. */
  allowCidr?: string[];
  trustProxy?: boolean;
  maxBody?: number;
  retrySchedule?: readonly number[];
  /** Speed-up of the retry schedule: 1000 turns one minute into 60 ms; Infinity makes every delay 0. Default 1. */
  timeScale?: number;
  concurrency?: number;
  forwardTimeoutMs?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  retention?: { maxCount?: number; maxAgeMs?: number };
  allowedHosts?: string[];
  allowedOrigins?: string[];
  segmentBytes?: number;
  pingIntervalMs?: number;
  /** Rate of rejected (401) deliveries journaled per source and in total; past it: 429 (./rateLimit.ts). */
  rejectLimits?: RejectLimits;
  /** The clock of the rate limits (tests). */
  now?: () => number;
  /** WebSocket subscriber limits (defaults: 8 MiB unsent, 64 per token, 256 unacknowledged). */
  subscriberLimits?: Pick<SubscriberOptions, 'maxUnsentBytes' | 'maxSubscribersPerToken' | 'window'>;
  /** Serve HTTPS and WSS with this certificate and key (relay/server/tls.ts loadTls). */
  tls?: TlsMaterial;
  /** The base of channel ingress URLs (`<publicUrl>/hooks/<name>`); default the listen address. */
  publicUrl?: string;
  /** --public: no implicit channels, no channel (nor channel creation) without a secret. */
  requireVerified?: boolean;
  /** The admin token; default `<dataDir>/token`, generated once. */
  token?: string;
  /** Told once when a new token is generated (the only time it is shown). */
  onTokenCreated?: (token: string, path: string) => void;
  /** Operational log lines (never contain the token). */
  log?: (line: string) => void;
  /** Stops the start-up's waits (for a NATS cluster not there yet): startRelay then rejects. */
  signal?: AbortSignal;
  /** Keep deliveries in NATS JetStream instead of the file journal (issue 15; docs: "Running a team relay"). */
  nats?: NatsChoice;
}


export interface RelayServer {
  port: number;
  host: string;
  url: string;
  token: string;
  dataDir: string;
  store: RelayStore;
  /** Serves this certificate and key to new TLS handshakes (checked with loadTls); false without TLS. */
  useTls(tls: TlsMaterial): boolean;
  /** Stop accepting, finish in-flight requests, flush the journal; pending forwards stay journaled. */
  close(): Promise<void>;
}

/**
 * Starts a relay. Throws RelayConfigError for bad options, DataDirLockedError when another relay
 * holds the data folder, and a listen error (with its `code`, e.g. EADDRINUSE) when the port is taken.
 */
export async function startRelay(options: RelayOptions = {}): Promise<RelayServer> {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const channels = new ChannelConfigs(options);
  for (const w of channels.weakSecrets()) options.log?.(`warning: ${w}`);
  if (!((options.timeScale ?? 1) > 0)) throw new RangeError('startRelay: timeScale must be a positive number (Infinity: no delays)');
  new SourceAllowList(options.allowCidr ?? []); // a bad CIDR is a config error before the data folder is touched

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const lock = lockDataDir(dataDir);
  try {
    return await serve(dataDir, lock, channels, options);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Everything after the data folder is locked: the store, the parts, listening. */
async function serve(dataDir: string, lock: DataLock, channels: ChannelConfigs, options: RelayOptions): Promise<RelayServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => undefined);
  const token = options.token ?? ensureToken(dataDir, options.onTokenCreated);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = () => `${options.tls ? 'https' : 'http'}://${urlHost}:${state.port}`;
  const directory = channelDirectory(dataDir, channels, options, baseUrl);
  const scopeOf = (given: string | undefined) => authenticate(given, token, directory.registry);
  const { store, shared, shareChannels } = await openStore(dataDir, options, log);
  const stopSharingChannels = await shareChannels?.(directory.registry);
  const allow = new SourceAllowList(options.allowCidr ?? []);
  const forwarder = new Forwarder(store, {
    schedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
    timeScale: 1 / (options.timeScale ?? 1),
    concurrency: options.concurrency,
    timeoutMs: options.forwardTimeoutMs,
    log,
  });
  const allowedHosts = options.allowedHosts ?? [];
  const onForwarded = (seq: number, status: number, state?: ForwardStatus) => recordSubscriberForward(store, seq, status, log, state);
  const hubOptions = { authenticate: scopeOf, boundHost: host, allowedHosts, allowedOrigins: options.allowedOrigins ?? [], pingIntervalMs: options.pingIntervalMs, onForwarded };
  const hub = new SubscriberHub(store, { ...hubOptions, ...options.subscriberLimits });
  const state = { accepting: true, port: options.port ?? DEFAULT_RELAY_PORT };
  // On JetStream, forwarding is shared work of every instance (durable consumers), not this process's.
  const sharedForwarding = shared?.(channels);
  const rejectLimiter = new RejectLimiter(options.rejectLimits, options.now);
  const trustProxy = options.trustProxy ?? false;
  // On JetStream the consumers forward; the local forwarder still replays.
  const forwarding: Pick<Forwarder, 'deliver' | 'retryNow'> = sharedForwarding ?? forwarder;
  const ingress = createIngress({ store, forwarder: forwarding, channels: directory, allow, trustProxy, maxBody: options.maxBody ?? DEFAULT_MAX_BODY, rejectLimiter });
  const api = createApi({ store, forwarder, retryNow: (filter) => forwarding.retryNow(filter), authenticate: scopeOf, channels: directory, onChannelDeleted: (n) => hub.revoke(n), log, boundHost: host, allowedHosts, port: () => state.port });
  const server = httpServer(options, { store, ingress, api, log, accepting: () => state.accepting }, hub);

  let retention: NodeJS.Timeout | undefined;
  const close = stopper({
    server,
    hub,
    forwarder,
    store,
    lock,
    beforeStop: () => ((state.accepting = false), clearInterval(retention), sharedForwarding?.stop(), stopSharingChannels?.()),
  });
  try {
    state.port = await listen(server, state.port, host);
  } catch (err) {
    await close(); // the journal closed and the lock given back before the caller hears of it
    throw err;
  }
  if (sharedForwarding) await sharedForwarding.start();
  else {
    const resumed = forwarder.resume();
    if (resumed > 0) log(`resuming ${resumed} pending forward(s) from the journal`);
  }
  retention = setInterval(() => void store.applyRetention().catch(() => undefined), 60_000);
  retention.unref();
  return { port: state.port, host, url: baseUrl(), token, dataDir, store, useTls: (tls) => useTls(server, tls), close };
}

interface OpenedStore {
  store: RelayStore;
  /** JetStream only: the forwarding every instance shares. */
  shared?: (channels: ChannelConfigs) => SharedForwarding;
  /** JetStream only: keeps the API's channels in the store, shared by every instance; returns a stop function. */
  shareChannels?: (registry: ChannelRegistry) => Promise<() => void>;
}

async function openStore(dataDir: string, options: RelayOptions, log: (line: string) => void): Promise<OpenedStore> {
  if (options.nats) {
    // Loaded only for --store nats://…: the file journal never loads the NATS client.
    const { openNatsStore } = await import('./nats/wiring');
    return openNatsStore(options.nats, options, log, options.signal);
  }
  const store = await DeliveryStore.open(dataDir, {
    segmentBytes: options.segmentBytes,
    retention: options.retention ?? { maxCount: 100_000, maxAgeMs: 30 * 24 * 3600 * 1000 },
    onTruncate: (t) => log(`journal: truncated a torn tail of ${t.dropped} bytes in segment ${t.segment} at offset ${t.offset}`),
    onCorrupt: (c) => log(`journal: skipped ${c.bytes} damaged bytes in segment ${c.segment} at offset ${c.offset}; the records after them are kept`),
    onRebuild: (r) => log(`journal: segment ${r.segment} has no valid index file; reading its ${(r.bytes / 1048576).toFixed(1)} MiB to rebuild it (once)`),
  });
  await store.applyRetention();
  return { store };
}

/** The channels: configured, created through the API (persisted in the data folder), implicit. */
function channelDirectory(dataDir: string, channels: ChannelConfigs, options: RelayOptions, baseUrl: () => string): ChannelDirectory {
  return openChannelDirectory(dataDir, {
    settingsOf: (name) => channels.get(name),
    configured: Object.keys(options.channels ?? {}),
    forward: options.forward ?? [],
    strict: options.requireVerified ?? false,
    ingressBase: () => options.publicUrl ?? baseUrl(),
  });
}

/** The HTTP(S) server: requests routed by requestHandler, upgrades at /ws to the hub, parser errors refused. */
function httpServer(options: RelayOptions, routes: Omit<Routes, 'track'>, hub: SubscriberHub): Server {
  const errors = clientErrors();
  const server = createHttpServer(serverOptions(options), options.tls, requestHandler({ ...routes, track: errors.track }));
  server.on('upgrade', (req, socket, head) => {
    // A reset while refusing (or before the WebSocket takes the socket over) must not crash the relay.
    socket.on('error', () => socket.destroy());
    const url = parseTarget(req.url);
    if (!url) return refuseRaw(socket, 400, { destroy: true });
    if (url.pathname !== WS_PATH || !routes.accepting()) return refuseRaw(socket, 404, { destroy: true });
    hub.upgrade(req, socket, head, url);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => errors.refuse(err, socket));
  return server;
}

function serverOptions(options: RelayOptions) {
  return {
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 120_000,
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? 1000, options.requestTimeoutMs ?? 1000),
    keepAliveTimeout: 5_000,
  };
}

interface Routes {
  store: RelayStore;
  ingress: IngressHandler;
  api: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  log: (line: string) => void;
  accepting: () => boolean;
  track: ClientErrors['track'];
}

/** Routes a request: the plain hook fast path, /healthz, /hooks/…, /api/…; a handler that throws answers 500. */
function requestHandler(r: Routes): (req: IncomingMessage, res: ServerResponse) => void {
  const failed = (req: IncomingMessage, res: ServerResponse, path: string) => (err: Error) => {
    r.log(`request ${req.method} ${path} failed: ${err.message}`);
    if (res.headersSent) res.destroy();
    else if (err instanceof StoreUnavailableError) sendError(res, 503, err.message, undefined, { 'retry-after': '5' });
    else sendError(res, 500, err.message);
  };
  return (req, res) => {
    r.track(req, res);
    const plain = req.method === 'POST' && r.accepting() ? PLAIN_HOOK_RE.exec(req.url ?? '') : null;
    if (plain) {
      r.ingress(req, res, plain[1]!).catch(failed(req, res, req.url!));
      return;
    }
    const url = parseTarget(req.url);
    if (!url) return sendError(res, 400, 'bad request target');
    const path = url.pathname;
    const handle = async () => {
      if (path === '/healthz') return sendJson(res, 200, { ok: true, lastSeq: r.store.lastSeq });
      if (!r.accepting()) return sendError(res, 503, 'relay is stopping', undefined, { connection: 'close' });
      if (path === '/hooks' || path.startsWith('/hooks/')) {
        if (req.method !== 'POST') return sendError(res, 405, 'use POST', undefined, { allow: 'POST' });
        const channel = hookChannel(path);
        if (channel === undefined) return sendError(res, 400, 'invalid channel name (bad percent-encoding)');
        return r.ingress(req, res, channel);
      }
      if (path.startsWith('/api/')) return r.api(req, res, url);
      return sendError(res, 404, 'not found');
    };
    handle().catch(failed(req, res, path));
  };
}

function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://relay.invalid');
  } catch {
    return undefined;
  }
}
