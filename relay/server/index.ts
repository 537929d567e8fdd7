// The relay server: ingress (allow-list, size cap, signature check on raw bytes, durable journal
// write before 200), asynchronous forwarding, the REST API and the WebSocket subscribers.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { verify, describeVerifyFailure, SIGNATURE_HEADER } from '../../src/core/signing';
import { WS_PATH, type DeliveryListQuery, type ErrorBody, type ForwardStatus, type RelayStatus, type Verification } from '../../src/core/relay/protocol';
import { bearer, clientAddress, hostAllowed, SourceAllowList, tokenMatches } from './access';
import { Forwarder, DEFAULT_RETRY_SCHEDULE_MS } from './forwarder';
import { DeliveryStore } from './store';
import { SubscriberHub } from './subscribers';
import { DEFAULT_RELAY_PORT } from '../../src/core/defaults';

export { CIDR_PRESETS } from './access';
export { DEFAULT_RETRY_SCHEDULE_MS } from './forwarder';

export const DEFAULT_DATA_DIR = join(homedir(), '.service-hooks', 'relay');
export const DEFAULT_MAX_BODY = 25 * 1024 * 1024;
export const CHANNEL_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface ChannelConfig {
  secrets?: string[];
  forward?: string[];
}

export interface RelayOptions {
  port?: number;
  host?: string;
  /** Default ~/.service-hooks/relay. */
  dataDir?: string;
  /** Secrets and targets of every channel not configured in `channels`. */
  secrets?: string[];
  forward?: string[];
  channels?: Record<string, ChannelConfig>;
  /** CIDRs or presets (`service`, `loopback`); empty: every source is accepted. */
  allowCidr?: string[];
  trustProxy?: boolean;
  maxBody?: number;
  retrySchedule?: readonly number[];
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
  /** Told once when a new token is generated (the only time it is shown). */
  onTokenCreated?: (token: string, path: string) => void;
  /** Operational log lines (never contain the token). */
  log?: (line: string) => void;
}

export interface RelayServer {
  port: number;
  host: string;
  url: string;
  token: string;
  dataDir: string;
  store: DeliveryStore;
  /** Stop accepting, finish in-flight requests, flush the journal; pending forwards stay journaled. */
  close(): Promise<void>;
}

/** Reads `<dataDir>/token`, or generates it (mode 0600). */
export function ensureToken(dataDir: string, onCreated?: (token: string, path: string) => void): string {
  const path = join(dataDir, 'token');
  try {
    const t = readFileSync(path, 'utf8').trim();
    if (t) {
      chmodSync(path, 0o600);
      return t;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, token + '\n', { mode: 0o600, flag: 'w' });
  chmodSync(path, 0o600);
  onCreated?.(token, path);
  return token;
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra });
  res.end(text);
}

function fail(res: ServerResponse, status: number, error: string, extra: Record<string, string> = {}): void {
  sendJson(res, status, { error } satisfies ErrorBody, extra);
}

function readJson(req: IncomingMessage, limit = 64 * 1024): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > limit) {
        reject(new Error('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text.trim() ? JSON.parse(text) : {});
      } catch {
        reject(new Error('request body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/**
 * The raw header pairs in arrival order, and in the same pass the signature header (duplicates
 * joined with ', ' as node does for req.headers, so a repeated header stays malformed).
 */
function pairs(raw: string[]): { headers: [string, string][]; signature: string | undefined } {
  const headers: [string, string][] = [];
  let signature: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i]!;
    const v = raw[i + 1]!;
    headers.push([k, v]);
    if (k.length === SIGNATURE_NAME.length && k.toLowerCase() === SIGNATURE_NAME) signature = signature === undefined ? v : `${signature}, ${v}`;
  }
  return { headers, signature };
}

const SIGNATURE_NAME = SIGNATURE_HEADER.toLowerCase();
/** POST /hooks/<name> with a name needing no decoding (no '%', '.', query): routed without a URL object. */
const PLAIN_HOOK_RE = /^\/hooks\/([A-Za-z0-9][A-Za-z0-9_-]{0,63})$/;

export async function startRelay(options: RelayOptions = {}): Promise<RelayServer> {
  const host = options.host ?? '127.0.0.1';
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const maxBody = options.maxBody ?? DEFAULT_MAX_BODY;
  const log = options.log ?? (() => undefined);
  const allow = new SourceAllowList(options.allowCidr ?? []);
  const trustProxy = options.trustProxy ?? false;
  for (const name of Object.keys(options.channels ?? {})) {
    if (!CHANNEL_RE.test(name)) throw new Error(`invalid channel name in config: '${name}'`);
  }
  const configs = new Map<string, Required<ChannelConfig>>();
  const channelConfig = (name: string): Required<ChannelConfig> => {
    let cfg = configs.get(name);
    if (!cfg) {
      const c = Object.hasOwn(options.channels ?? {}, name) ? options.channels![name] : undefined;
      cfg = { secrets: c?.secrets ?? options.secrets ?? [], forward: c?.forward ?? options.forward ?? [] };
      if (configs.size < 10_000) configs.set(name, cfg);
    }
    return cfg;
  };
  for (const u of [...(options.forward ?? []), ...Object.values(options.channels ?? {}).flatMap((c) => c.forward ?? [])]) {
    const p = new URL(u).protocol;
    if (p !== 'http:' && p !== 'https:') throw new Error(`forward target must be http(s): '${u}'`);
  }

  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const token = ensureToken(dataDir, options.onTokenCreated);
  const store = await DeliveryStore.open(dataDir, {
    segmentBytes: options.segmentBytes,
    retention: options.retention ?? { maxCount: 100_000, maxAgeMs: 30 * 24 * 3600 * 1000 },
    onTruncate: (t) => log(`journal: truncated a torn tail of ${t.dropped} bytes in segment ${t.segment} at offset ${t.offset}`),
  });
  await store.applyRetention();
  const forwarder = new Forwarder(store, {
    schedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
    timeScale: options.timeScale,
    concurrency: options.concurrency,
    timeoutMs: options.forwardTimeoutMs,
  });
  let port = options.port ?? DEFAULT_RELAY_PORT;
  const hub = new SubscriberHub(store, {
    token,
    boundHost: host,
    allowedHosts: options.allowedHosts ?? [],
    allowedOrigins: options.allowedOrigins ?? [],
    pingIntervalMs: options.pingIntervalMs,
  });
  let accepting = true;

  async function ingress(req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
    if (!CHANNEL_RE.test(channel)) return fail(res, 400, `invalid channel name (letters, digits, '.', '_', '-'; at most 64)`);
    if (!allow.allows(clientAddress(req, trustProxy))) {
      req.resume();
      return fail(res, 403, 'source address not in the allow-list', { connection: 'close' });
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBody) {
      return fail(res, 413, `body exceeds the ${maxBody}-byte limit`, { connection: 'close' });
    }
    const body = await new Promise<Buffer | undefined>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let n = 0;
      let over = false;
      req.on('data', (c: Buffer) => {
        if (over) return;
        n += c.length;
        if (n > maxBody) {
          over = true;
          chunks.length = 0;
          resolve(undefined);
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (!over) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, n));
      });
      req.on('error', reject);
      req.on('aborted', () => reject(new Error('client aborted')));
    }).catch(() => null);
    if (body === null) return; // client went away
    if (body === undefined) {
      fail(res, 413, `body exceeds the ${maxBody}-byte limit`, { connection: 'close' });
      res.on('finish', () => req.socket.destroy());
      return;
    }
    const cfg = channelConfig(channel);
    const { headers: headerPairs, signature } = pairs(req.rawHeaders);
    let verification: Verification = 'unverified';
    let reason: string | undefined;
    if (cfg.secrets.length > 0) {
      const v = verify(body, signature, cfg.secrets);
      if (v.ok) verification = 'verified';
      else {
        verification = 'rejected';
        reason = describeVerifyFailure(v.reason);
      }
    }
    const targets = verification === 'rejected' ? [] : cfg.forward;
    const { seq, durable } = store.begin({ channel, verification, ...(reason ? { reason } : {}), headers: headerPairs, targets }, body);
    // The first forward attempt runs in parallel with the journal write; the 200 waits for the write.
    forwarder.deliver(seq, targets, body, headerPairs, durable);
    await durable;
    if (verification === 'rejected') return fail(res, 401, reason!);
    // Same bytes as sendJson(res, 200, { seq, verification }), without building an object and a header record.
    const text = `{"seq":${seq},"verification":"${verification}"}`;
    res.writeHead(200, ['content-type', 'application/json', 'content-length', String(text.length)]);
    res.end(text);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!hostAllowed(req.headers.host, host, options.allowedHosts ?? [])) return fail(res, 403, 'forbidden Host header');
    if (!tokenMatches(bearer(req), token)) return fail(res, 401, 'missing or wrong relay token', { 'www-authenticate': 'Bearer' });
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path === '/api/status' && method === 'GET') {
      return sendJson(res, 200, { port, channels: store.channels(), lastSeq: store.lastSeq } satisfies RelayStatus);
    }
    if (path === '/api/deliveries' && method === 'GET') {
      const q: DeliveryListQuery = {};
      const p = url.searchParams;
      if (p.get('channel')) q.channel = p.get('channel')!;
      if (p.get('status')) q.status = p.get('status') as Verification | ForwardStatus;
      for (const k of ['since', 'limit'] as const) {
        const v = p.get(k);
        if (v === null || v === '') continue;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) return fail(res, 400, `${k} must be a non-negative integer`);
        q[k] = n;
      }
      return sendJson(res, 200, { deliveries: store.list(q), lastSeq: store.lastSeq });
    }
    const one = /^\/api\/deliveries\/(\d+)(\/replay)?$/.exec(path);
    if (one) {
      const seq = Number(one[1]);
      if (!one[2] && method === 'GET') {
        const d = await store.detail(seq);
        return d ? sendJson(res, 200, d) : fail(res, 404, `no delivery ${seq}`);
      }
      if (one[2] && method === 'POST') {
        const raw = await readJson(req);
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(res, 400, 'body must be a JSON object');
        const body = raw as { to?: unknown; resignSecret?: unknown };
        if (body.to !== undefined && (typeof body.to !== 'string' || !/^https?:\/\//.test(body.to))) return fail(res, 400, 'to must be an http(s) URL');
        if (body.resignSecret !== undefined && (typeof body.resignSecret !== 'string' || body.resignSecret === '')) return fail(res, 400, 'resignSecret must be a non-empty string');
        const attempts = await forwarder.replay(seq, { to: body.to as string | undefined, resignSecret: body.resignSecret as string | undefined });
        return attempts ? sendJson(res, 200, { attempts }) : fail(res, 404, `no delivery ${seq}`);
      }
    }
    if (path === '/api/prune' && method === 'POST') {
      const raw = await readJson(req);
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(res, 400, 'body must be a JSON object');
      const body = raw as { keep?: unknown; olderThanMs?: unknown };
      for (const k of ['keep', 'olderThanMs'] as const) {
        const v = body[k];
        if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) return fail(res, 400, `${k} must be a non-negative integer`);
      }
      return sendJson(res, 200, await store.prune({ keep: body.keep as number | undefined, olderThanMs: body.olderThanMs as number | undefined }));
    }
    return fail(res, 404, 'not found');
  }

  function failed(req: IncomingMessage, res: ServerResponse, path: string, err: Error): void {
    log(`request ${req.method} ${path} failed: ${err.message}`);
    if (!res.headersSent) fail(res, /too large/.test(err.message) ? 413 : /JSON/.test(err.message) ? 400 : 500, err.message);
    else res.destroy();
  }

  const server: Server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 120_000,
      connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs ?? 1000, options.requestTimeoutMs ?? 1000),
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      const plain = req.method === 'POST' && accepting ? PLAIN_HOOK_RE.exec(req.url ?? '') : null;
      if (plain) {
        ingress(req, res, plain[1]!).catch((err: Error) => failed(req, res, new URL(req.url!, 'http://relay.invalid').pathname, err));
        return;
      }
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://relay.invalid');
      } catch {
        return fail(res, 400, 'bad request target');
      }
      const path = url.pathname;
      const handle = async () => {
        if (path === '/healthz') return sendJson(res, 200, { ok: true, lastSeq: store.lastSeq });
        if (!accepting) return fail(res, 503, 'relay is stopping', { connection: 'close' });
        if (path === '/hooks' || path.startsWith('/hooks/')) {
          if (req.method !== 'POST') return fail(res, 405, 'use POST', { allow: 'POST' });
          let channel = 'default';
          if (path !== '/hooks' && path !== '/hooks/') {
            try {
              channel = decodeURIComponent(path.slice('/hooks/'.length));
            } catch {
              return fail(res, 400, 'invalid channel name (bad percent-encoding)');
            }
          }
          return ingress(req, res, channel);
        }
        if (path.startsWith('/api/')) return api(req, res, url);
        return fail(res, 404, 'not found');
      };
      handle().catch((err: Error) => failed(req, res, path, err));
    },
  );
  server.on('upgrade', (req, socket, head) => {
    // A reset while refusing (or before the WebSocket takes the socket over) must not crash the relay.
    socket.on('error', () => socket.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://relay.invalid');
    } catch {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', () => socket.destroy());
      return;
    }
    if (url.pathname !== WS_PATH || !accepting) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', () => socket.destroy());
      return;
    }
    hub.upgrade(req, socket, head, url);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const status =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as { port: number }).port;
  const resumed = forwarder.resume();
  if (resumed > 0) log(`resuming ${resumed} pending forward(s) from the journal`);
  const retention = setInterval(() => void store.applyRetention().catch(() => undefined), 60_000);
  retention.unref();

  let closing: Promise<void> | undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    host,
    url: `http://${urlHost}:${port}`,
    token,
    dataDir,
    store,
    close() {
      closing ??= (async () => {
        accepting = false;
        clearInterval(retention);
        hub.close();
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        // Slow or stuck clients get a grace period, then their connections are cut.
        const cut = setTimeout(() => server.closeAllConnections(), 5_000);
        cut.unref();
        await forwarder.stop();
        await closed;
        clearTimeout(cut);
        await store.close();
      })();
      return closing;
    },
  };
}
