// The relay server: startRelay() locks the data folder, listens, opens the store the `--store` URL
// names (./storeBackends.ts), and wires the rooms over it: ingress (./ingress), the REST API (./api),
// the WebSocket subscribers (./subscribers), forwarding (./forwarding), the page (./page) and
// metrics (./metrics). It is the top floor of relay/server (docs/architecture.md, Floors).
import { chmodSync, mkdirSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { listen, refuseRaw, sendError, sendJson } from '../shared/http';
import { SourceRefusals } from './ingress/refusals';
import { RefusalLog, type RefusalReason, type Refused } from './access/refusalLog';
import { bearer, hostAllowed, SourceAllowList } from './access/access';
import { createApi } from './api/api';
import { openChannelDirectory, type ChannelDirectory } from './channels/channelDirectory';
import { clientErrors, type ClientErrors } from './ingress/clientErrors';
import { ChannelConfigs, type ChannelDefaults } from './channels/channels';
import { Forwarder } from './forwarding/forwarder';
import { createIngress, type IngressHandler } from './ingress/ingress';
import { lockDataDir, type DataLock } from './dataLock';
import { stopper } from './lifecycle';
import { LoadGate } from './loadGate';
import { RejectLimiter, type RejectLimits } from './ingress/rateLimit';
import { openStore, storeBackend, type StoreChoice } from './storeBackends';
import type { SnapshotOptions } from './store/journalSnapshot';
import { metering, type MetricsOption } from './metrics';
import { createPage, type Page } from './page';
import { recordSubscriberForward, recordSubscriberSkip } from './subscribers/subscriberForward';
import { authenticate } from './access/scope';
import type { RelayLog } from './base/log';
import type { RelayStore } from './base/storeTypes';
import type { JournalFs } from './journal/journalFs';
import { JournalFailedError } from './journal/journalErrors';
import { SubscriberHub, type SubscriberOptions } from './subscribers/subscribers';
import { createHttpServer, useTls, type TlsMaterial } from './tls';
import { ensureToken } from './access/token';
import { WS_PATH, type ForwardStatus } from '../../src/core/relay/protocol';
import { REST_PATHS } from '../../src/core/relay/restPaths';
import { hookChannel, isHookPath, PLAIN_HOOK_RE, requestTarget as parseTarget } from '../../src/core/relay/ingressChannel';
import { DEFAULT_RELAY_PORT } from '../../src/core/defaults';

export { CIDR_PRESETS } from './access/access';
export { CHANNEL_RE, type ChannelConfig } from './channels/channels';
export { DataDirLockedError, LOCK_FILE } from './dataLock';
export { RelayConfigError } from './base/errors';
import { StoreUnavailableError } from './base/errors';
export { DEFAULT_REJECT_LIMITS, type RejectLimits } from './ingress/rateLimit';
export { REJECTED_BODY_KEEP } from './base/rejected';
export { ensureToken } from './access/token';

export const DEFAULT_DATA_DIR = join(homedir(), '.service-hooks', 'relay');
export const RELAY_MAX_BODY = 25 * 1024 * 1024;

export interface RelayOptions extends ChannelDefaults {
  port?: number;
  host?: string;
  /** Default ~/.service-hooks/relay. */
  dataDir?: string;
  /** CIDRs or presets (`service`, `loopback`); empty: every source is accepted. */
  allowCidr?: string[];
  /** The reverse proxies (addresses, CIDRs or presets) whose X-Forwarded-For names the client; empty or absent: none. */
  trustProxy?: readonly string[];
  maxBody?: number;
  retrySchedule?: readonly number[];
  /** Speed-up of the retry schedule: 1000 turns one minute into 60 ms; Infinity makes every delay 0. Default 1. */
  timeScale?: number;
  concurrency?: number;
  forwardTimeoutMs?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** maxCount: accepted deliveries kept; maxRejected: rejected ones kept, apart (default 1,000); maxAgeMs: both. */
  retention?: { maxCount?: number; maxAgeMs?: number; maxRejected?: number };
  allowedHosts?: string[];
  allowedOrigins?: string[];
  segmentBytes?: number;
  /** The file journal's index snapshots: every N records (--snapshot-every), false for none; absent: the defaults. */
  snapshot?: SnapshotOptions | false;
  pingIntervalMs?: number;
  /** Rate of rejected (401) deliveries journaled per source and in total; past it: 429 (./ingress/rateLimit.ts). */
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
  /** Operational log lines (never contain the token), with fields where they apply (./log.ts). */
  log?: RelayLog;
  /** Stops the start-up's waits (for a NATS cluster not there yet): startRelay then rejects. */
  signal?: AbortSignal;
  /** Where deliveries are kept (`--store`): the file journal in dataDir (default), NATS JetStream, memory (./storeBackends.ts). */
  store?: StoreChoice;
  /** The file journal's file operations (tests inject failures); default node:fs. */
  journalFs?: JournalFs;
  /** The built channel page (app.js, app.css); default dist/page beside the bundled CLI (relay/server/page). */
  pageDir?: string;
  /** Prometheus metrics: true (default) at /metrics with the admin token, { host, port } on a listener of their own, false off. */
  metrics?: MetricsOption;
  /** Told the bound port as soon as the relay listens, before the store has loaded (answers are then `starting`: see serve()). */
  onListening?: (port: number) => void;
}

export interface RelayServer {
  port: number;
  host: string;
  url: string;
  token: string;
  dataDir: string;
  store: RelayStore;
  /** Where the Prometheus metrics are served (undefined: off). */
  metricsUrl?: string;
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
  for (const w of channels.weakSecrets()) options.log?.(`warning: ${w}`, { level: 'warn' });
  const unsigned = channels.unsignedWarning(options.requireVerified ?? false);
  if (unsigned) options.log?.(`warning: ${unsigned}`, { level: 'warn' });
  if (!((options.timeScale ?? 1) > 0)) throw new RangeError('startRelay: timeScale must be a positive number (Infinity: no delays)');
  new SourceAllowList(options.allowCidr ?? []); // a bad CIDR is a config error before the data folder is touched
  new SourceAllowList(options.trustProxy ?? []);

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

/**
 * Everything after the data folder is locked: listening first, answering as `starting` (below)
 * while the store opens, then the wired relay. The file journal opens for appends once its last
 * segment is read (seqs follow its last record), and the relay takes deliveries while the index
 * is built (./loadGate.ts; the API answers 503 until then). Before that a sender gets a 503 with
 * Retry-After instead of a refused connection.
 */
async function serve(dataDir: string, lock: DataLock, channels: ChannelConfigs, options: RelayOptions): Promise<RelayServer> {
  const host = options.host ?? '127.0.0.1';
  const serving: { current: Serving } = { current: starting(startingError(storeBackend(options.store?.url).kind)) };
  const errors = clientErrors();
  const server = httpServer(options, serving);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => errors.refuse(err, socket));
  const port = await listen(server, options.port ?? DEFAULT_RELAY_PORT, host);
  options.onListening?.(port);
  try {
    return await wire(dataDir, lock, channels, options, { server, serving, host, port, track: errors.track });
  } catch (err) {
    server.close();
    server.closeAllConnections();
    throw err;
  }
}

/** What the server does with requests and WebSocket upgrades (swapped once the relay is wired). */
interface Serving {
  request: (req: IncomingMessage, res: ServerResponse) => void;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** What the relay answers while the file journal loads. */
export const STARTING_ERROR = 'relay is starting: loading the journal';

/** What the relay answers while its store opens, in the store's words (a JetStream relay has no journal). */
export function startingError(kind: string): string {
  if (kind === 'jetstream') return 'relay is starting: connecting to NATS JetStream';
  return kind === 'file' ? STARTING_ERROR : 'relay is starting';
}

/**
 * While the store opens: GET /healthz 200 `{ ok: true, starting: true }` (alive), GET /readyz 503
 * (not ready), every other request 503 with Retry-After: 1 (nothing is accepted, stored or
 * read), WebSocket upgrades too.
 */
function starting(error: string): Serving {
  return {
    request: (req, res) => {
      req.resume();
      const path = parseTarget(req.url)?.pathname;
      if (path === REST_PATHS.health) return sendJson(res, 200, { ok: true, starting: true });
      if (path === REST_PATHS.ready) return sendJson(res, 503, { ready: false, error });
      sendError(res, 503, error, undefined, { 'retry-after': '1' });
    },
    // Retry-After: a subscriber back after an outage tries again in a second, not after its grown backoff.
    upgrade: (_req, socket) => refuseRaw(socket, 503, { destroy: true, retryAfter: 1 }),
  };
}

/** The store, the parts and their routes, on a server already listening. */
// One wiring step a line, as written: Prettier's layout would take this function past the
// 100-line limit of test/unit/style.test.ts.
// prettier-ignore
async function wire(dataDir: string, lock: DataLock, channels: ChannelConfigs, options: RelayOptions, listening: { server: Server; serving: { current: Serving }; host: string; port: number; track: ClientErrors['track'] }): Promise<RelayServer> {
  const { server, serving, host } = listening;
  const log = options.log ?? (() => undefined);
  const token = options.token ?? ensureToken(dataDir, options.onTokenCreated);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = () => `${options.tls ? 'https' : 'http'}://${urlHost}:${state.port}`;
  const directory = channelDirectory(dataDir, channels, options, baseUrl);
  const scopeOf = (given: string | undefined) => authenticate(given, token, directory.registry);
  const allowedHosts = options.allowedHosts ?? [];
  const meter = metering(options.metrics, { allowedHosts, refused: (req, reason, what) => refusalLog.refused(req, reason, what) });
  const { store, kind, identity, shared, shareChannels, shareSessions, shareReplays, jetstream, loading } = await openStore(options.store, { ...options, dataDir, log, onSync: meter?.synced });
  const stopSharingChannels = await shareChannels?.(directory.registry);
  const allow = new SourceAllowList(options.allowCidr ?? []);
  const refusals = new SourceRefusals();
  const trustProxy = options.trustProxy?.length ? new SourceAllowList(options.trustProxy) : undefined;
  const refusalLog = new RefusalLog(log, (reason) => meter?.refused(reason), trustProxy, options.now);
  const refused = refusalLog.refused;
  const forwarder = new Forwarder(store, {
    schedule: options.retrySchedule,
    timeScale: options.timeScale,
    concurrency: options.concurrency,
    timeoutMs: options.forwardTimeoutMs,
    log,
  });
  const onForwarded = (seq: number, status: number, state?: ForwardStatus, replay?: boolean) => recordSubscriberForward(store, seq, status, log, state, replay);
  const onSkipped = (seq: number) => recordSubscriberSkip(store, seq, log);
  const hubOptions = { relay: identity, onSkipped, authenticate: scopeOf, keyOf: (name: string) => directory.registry.keyOf(name), boundHost: host, allowedHosts, allowedOrigins: options.allowedOrigins ?? [], pingIntervalMs: options.pingIntervalMs, onForwarded, onRefused: (req: IncomingMessage, status: number, phrase: string) => refused(req, wsReason(status, phrase), 'a WebSocket') };
  const hub = new SubscriberHub(store, { ...hubOptions, ...options.subscriberLimits });
  const state = { accepting: true, port: listening.port };
  // On JetStream, forwarding is shared work of every instance (durable consumers), not this process's.
  const sharedForwarding = shared?.(channels);
  const rejectLimiter = new RejectLimiter(options.rejectLimits, options.now);
  const gate = new LoadGate(loading); // the file journal: deliveries are taken while its index is built
  // On JetStream the consumers forward; the local forwarder still replays.
  const forwarding: Pick<Forwarder, 'deliver' | 'retryNow'> = sharedForwarding ?? forwarder;
  const ingress = createIngress({ store: meter ? meter.ingressStore(store) : store, forwarder: gate.forwarder(forwarding), subscribers: gate.subscribers(hub), channels: directory, allow, trustProxy, maxBody: options.maxBody ?? RELAY_MAX_BODY, rejectLimiter, refusals, refusalLog, log });
  const page = createPage({ store, authenticate: scopeOf, boundHost: host, allowedHosts, allowedOrigins: options.allowedOrigins ?? [], tls: !!options.tls, trustProxy, signInLimiter: new RejectLimiter(options.rejectLimits, options.now), assetsDir: options.pageDir, now: options.now, refused, secretsOf: (key) => directory.secretsOfKey(key) });
  const stopSharingSessions = await shareSessions?.(page.sessions);
  const onChannelDeleted = (name: string) => (hub.revoke(name), page.revoke());
  // On a shared store a deletion at another instance closes this one's streams of the channel too.
  directory.registry.onDeletedElsewhere((name) => (onChannelDeleted(name), log(`channel '${name}' deleted at another relay instance; its streams here are closed`, { channel: name })));
  const replays = shareReplays?.((seq) => hub.replay(seq)); // on a shared store, every instance's subscribers
  const api = createApi({ store, forwarder, replayToSubscribers: replays?.replay ?? ((seq) => hub.replay(seq)), retryNow: (filter) => forwarding.retryNow(filter), authenticate: scopeOf, channels: directory, onChannelDeleted, log, boundHost: host, allowedHosts, port: () => state.port, refused, withRefusals: (c, blank) => refusals.merge(c, blank) });
  const metrics = meter?.route && adminOnlyRoute(meter.route, (req) => (hostAllowed(req.headers.host, host, allowedHosts) ? scopeOf(bearer(req))?.kind === 'admin' || 'token' : 'host'), refused);
  serving.current = wired({ store, ingress, api, log, accepting: () => state.accepting, loading: () => gate.isLoading, metrics, refused, page, track: listening.track }, hub);

  let retention: NodeJS.Timeout | undefined;
  const close = stopper({
    server,
    hub,
    forwarder,
    store,
    lock,
    beforeStop: () => ((state.accepting = false), clearInterval(retention), sharedForwarding?.stop(), stopSharingChannels?.(), stopSharingSessions?.(), replays?.stop(), void meter?.close(), page.close()),
  });
  if (allow.enabled) log(`accepting deliveries only from ${allow.entries.join(', ')}${trustProxy ? ' (the last X-Forwarded-For address)' : ''}; others get 403, counted per channel as 'refused'`);
  if (loading) log('accepting deliveries; loading the journal\'s index (the API answers once it is built)');
  await gate.open(() => (sharedForwarding ? undefined : resumeForwards(forwarder, log))).catch(async (err) => {
    await close();
    throw err;
  });
  if (sharedForwarding) await sharedForwarding.start();
  retention = setInterval(() => void store.applyRetention().catch(() => undefined), 60_000);
  retention.unref();
  const reserved = (name: string) => ownChannel(directory, name);
  const ownMetricsUrl = await meter?.start({ store, subscribers: hub, storeKind: kind === 'jetstream' ? 'jetstream' : 'file', reserved }, jetstream).catch(async (err) => {
    await close();
    throw err;
  });
  const metricsUrl = meter ? (ownMetricsUrl ?? `${baseUrl()}/metrics`) : undefined;
  return { port: state.port, host, url: baseUrl(), token, dataDir, store, metricsUrl, useTls: (tls) => useTls(server, tls), close };
}

/** After a restart: the pending forwards the journal holds. */
function resumeForwards(forwarder: Forwarder, log: RelayLog): void {
  const resumed = forwarder.resume();
  if (resumed > 0) log(`resuming ${resumed} pending forward(s) from the journal`);
}

/** A configured, default or API channel (not an implicit one): its metric label is reserved. */
function ownChannel(directory: ChannelDirectory, name: string): boolean {
  const found = directory.lookup(name);
  return found.ok && found.source !== 'implicit';
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

/** The HTTP(S) server: requests and upgrades handed to what `serving` holds at the time. */
function httpServer(options: RelayOptions, serving: { current: Serving }): Server {
  const server = createHttpServer(serverOptions(options), options.tls, (req, res) => serving.current.request(req, res));
  server.on('upgrade', (req, socket, head) => {
    // A reset while refusing (or before the WebSocket takes the socket over) must not crash the relay.
    socket.on('error', () => socket.destroy());
    serving.current.upgrade(req, socket, head);
  });
  return server;
}

/** The wired relay: requests routed by requestHandler, upgrades at /ws to the hub. */
function wired(routes: Routes, hub: SubscriberHub): Serving {
  return {
    request: requestHandler(routes),
    upgrade: (req, socket, head) => {
      const url = parseTarget(req.url);
      if (!url) return refuseRaw(socket, 400, { destroy: true });
      if (url.pathname !== WS_PATH || !routes.accepting()) return refuseRaw(socket, 404, { destroy: true });
      if (routes.loading()) return refuseRaw(socket, 503, { destroy: true, retryAfter: 1 });
      hub.upgrade(req, socket, head, url);
    },
  };
}

function serverOptions(options: RelayOptions) {
  return {
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 120_000,
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? 1000, options.requestTimeoutMs ?? 1000),
    keepAliveTimeout: 5_000,
  };
}

/** GET /metrics on the relay's port: the admin token and an allowed Host, else 401 (no hint what is there), logged and counted. */
function adminOnlyRoute(
  route: (req: IncomingMessage, res: ServerResponse) => void,
  admitted: (req: IncomingMessage) => true | RefusalReason,
  refused: Refused,
): Routes['metrics'] {
  return (req, res) => {
    req.resume();
    const why = admitted(req);
    if (why !== true) {
      refused(req, why, 'a metrics scrape');
      return sendError(res, 401, 'missing or wrong relay token (the admin token)', undefined, { 'www-authenticate': 'Bearer' });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'use GET', undefined, { allow: 'GET' });
    route(req, res);
  };
}

interface Routes {
  store: RelayStore;
  ingress: IngressHandler;
  api: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  /** GET /metrics when served on this port. */
  metrics?: (req: IncomingMessage, res: ServerResponse) => void;
  /** GET / and /page/…, and the session cookie's way into /api. */
  page: Page;
  /** Logs and counts a refusal (./access/refusalLog.ts); here: an API body over the limit (413). */
  refused: Refused;
  log: RelayLog;
  accepting: () => boolean;
  /** The file journal's index is being built: deliveries are taken, nothing else is answered yet. */
  loading: () => boolean;
  track: ClientErrors['track'];
}

/** Routes a request: the plain hook fast path, /healthz, /hooks/…, /api/…; a handler that throws answers 500. */
function requestHandler(r: Routes): (req: IncomingMessage, res: ServerResponse) => void {
  const failed = (req: IncomingMessage, res: ServerResponse, path: string) => (err: Error) => {
    r.log(`request ${req.method} ${path} failed: ${err.message}`, { level: 'error', status: err instanceof StoreUnavailableError ? 503 : 500 });
    if (res.headersSent) res.destroy();
    else if (err instanceof StoreUnavailableError || err instanceof JournalFailedError) sendError(res, 503, err.message, undefined, { 'retry-after': '5' });
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
      if (path === REST_PATHS.health || path === REST_PATHS.ready) return health(res, path, r);
      // At once, and with Retry-After: the service (or a load balancer) sends it to another instance or later.
      if (!r.accepting()) return sendError(res, 503, 'relay is stopping', undefined, { connection: 'close', 'retry-after': '5' });
      if (r.loading() && !isHookPath(path)) return sendError(res, 503, STARTING_ERROR, undefined, { 'retry-after': '1' });
      if (isHookPath(path)) {
        if (req.method !== 'POST') return sendError(res, 405, 'use POST', undefined, { allow: 'POST' });
        const channel = hookChannel(path);
        if (channel === undefined) return sendError(res, 400, 'invalid channel name (bad percent-encoding)');
        return r.ingress(req, res, channel);
      }
      if (path.startsWith('/api/')) {
        if (!(await r.page.apiAuth(req, res))) return;
        await r.api(req, res, url);
        if (res.statusCode === 413) r.refused(req, 'too-large', 'an API request');
        return;
      }
      if (path === '/metrics' && r.metrics) return r.metrics(req, res);
      if (r.page.handle(req, res, url)) return;
      return sendError(res, 404, 'not found');
    };
    handle().catch(failed(req, res, path));
  };
}

/**
 * GET /healthz (liveness: 503 when only a restart helps, e.g. a journal that refuses every write)
 * and GET /readyz (readiness: 503 while deliveries cannot be stored, e.g. NATS unreachable, the
 * last journal write failed, the relay stopping). Each 503 says why.
 */
function health(res: ServerResponse, path: string, r: Routes): void {
  if (r.loading()) return loadingHealth(res, path);
  const h = r.store.health();
  const warning = h.warning ? { warning: h.warning } : {};
  if (path === REST_PATHS.health)
    return h.fatal ? sendJson(res, 503, { ok: false, error: h.notReady, ...warning }) : sendJson(res, 200, { ok: true, ...warning });
  if (!r.accepting()) return sendJson(res, 503, { ready: false, error: 'relay is stopping' });
  return h.notReady ? sendJson(res, 503, { ready: false, error: h.notReady, ...warning }) : sendJson(res, 200, { ready: true, ...warning });
}

/** While the index is built: alive and taking deliveries (`accepting`), not ready (the API does not answer yet). */
function loadingHealth(res: ServerResponse, path: string): void {
  if (path === REST_PATHS.health) return sendJson(res, 200, { ok: true, starting: true, accepting: true });
  sendJson(res, 503, { ready: false, error: STARTING_ERROR });
}

/** The reason of a refused WebSocket upgrade (relay/server/subscribers/subscribers.ts upgrade()). */
function wsReason(status: number, phrase: string): RefusalReason {
  if (status === 401) return 'token';
  if (status === 429) return 'rate-limit';
  if (status === 400) return 'bad-request';
  if (phrase === 'Forbidden Host') return 'host';
  return phrase === 'Forbidden Origin' ? 'browser' : 'token';
}
