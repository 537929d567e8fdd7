// The relay's REST API on a route table. Every route needs an allowed Host (DNS rebinding) and the
// relay token. Errors are { "error": "<message>" }: 400 bad query or body · 401 · 403 Host ·
// 404 unknown route or seq · 405 wrong method (with Allow) · 413 body over 64 KiB · 415 never
// (bodies are read as JSON whatever their Content-Type) · 500 a journal read or write failed.
//
//   GET  /api/status                      → 200 RelayStatus
//   GET  /api/deliveries?channel=&status=&since=&before=&limit=  → 200 DeliveryList (newest first)
//   GET  /api/deliveries/<seq>            → 200 RelayDelivery
//   POST /api/deliveries/<seq>/replay     → 200 ReplayResponse ({ to?, resignSecret? })
//   POST /api/forward/retry               → 200 RetryPendingResponse ({ channel?, target? }): retry pending now
//   POST /api/prune                       → 200 PruneResponse ({ keep?, olderThanMs? })
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryListQuery, ForwardStatus, RelayStatus, RetryPendingResponse, Verification } from '../../src/core/relay/protocol';
import { bearer, isJsonObject, readJson, sendError, sendJson, sendTooLarge, tokenMatches } from '../shared/http';
import { hostAllowed } from './access';
import type { Forwarder } from './forwarder';
import { parseRetryRequest } from './retryRequest';
import type { DeliveryStore } from './store';

export interface ApiContext {
  store: DeliveryStore;
  forwarder: Forwarder;
  token: string;
  boundHost: string;
  allowedHosts: readonly string[];
  /** The port the relay listens on (known once it listens). */
  port: () => number;
}

/** API request bodies are small JSON objects. */
export const MAX_API_BODY = 64 * 1024;

type Handler = (req: IncomingMessage, res: ServerResponse, params: string[], url: URL) => Promise<void> | void;

interface Route {
  pattern: RegExp;
  methods: Partial<Record<string, Handler>>;
}

export function createApi(ctx: ApiContext): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const routes = apiRoutes(ctx);
  return async function api(req, res, url) {
    if (!hostAllowed(req.headers.host, ctx.boundHost, ctx.allowedHosts)) return refuse(req, res, 403, 'forbidden Host header');
    if (!tokenMatches(bearer(req), ctx.token)) {
      return refuse(req, res, 401, 'missing or wrong relay token', { 'www-authenticate': 'Bearer' });
    }
    const path = url.pathname;
    for (const r of routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      const handler = r.methods[req.method ?? 'GET'];
      if (handler) return handler(req, res, m.slice(1), url);
      const allow = Object.keys(r.methods).join(', ');
      return refuse(req, res, 405, `method ${req.method} is not allowed here; use ${allow}`, { allow });
    }
    return refuse(req, res, 404, 'not found');
  };
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string, headers: Record<string, string> = {}): void {
  req.resume();
  sendError(res, status, error, undefined, headers);
}

function apiRoutes(ctx: ApiContext): Route[] {
  const { store, forwarder } = ctx;
  return [
    {
      pattern: /^\/api\/status$/,
      methods: { GET: (_req, res) => sendJson(res, 200, { port: ctx.port(), channels: store.channels(), lastSeq: store.lastSeq, journal: store.integrity() } satisfies RelayStatus) },
    },
    {
      pattern: /^\/api\/deliveries$/,
      methods: {
        GET: (_req, res, _p, url) => {
          const q = listQuery(url.searchParams);
          if ('error' in q) return sendError(res, 400, q.error);
          sendJson(res, 200, { deliveries: store.list(q), lastSeq: store.lastSeq });
        },
      },
    },
    {
      pattern: /^\/api\/deliveries\/(\d+)$/,
      methods: {
        GET: async (_req, res, p) => {
          const d = await store.detail(Number(p[0]));
          return d ? sendJson(res, 200, d) : sendError(res, 404, `no delivery ${p[0]}`);
        },
      },
    },
    {
      pattern: /^\/api\/deliveries\/(\d+)\/replay$/,
      methods: {
        POST: async (req, res, p) => {
          const body = await objectBody(req, res);
          if (!body) return;
          const r = replayRequest(body);
          if ('error' in r) return sendError(res, 400, r.error);
          const attempts = await forwarder.replay(Number(p[0]), r);
          return attempts ? sendJson(res, 200, { attempts }) : sendError(res, 404, `no delivery ${p[0]}`);
        },
      },
    },
    {
      pattern: /^\/api\/forward\/retry$/,
      methods: {
        POST: async (req, res) => {
          const body = await objectBody(req, res);
          if (!body) return;
          const filter = parseRetryRequest(body);
          if ('error' in filter) return sendError(res, 400, filter.error);
          sendJson(res, 200, { queued: forwarder.retryNow(filter) } satisfies RetryPendingResponse);
        },
      },
    },
    {
      pattern: /^\/api\/prune$/,
      methods: {
        POST: async (req, res) => {
          const body = await objectBody(req, res);
          if (!body) return;
          const r = pruneRequest(body);
          if ('error' in r) return sendError(res, 400, r.error);
          sendJson(res, 200, await store.prune(r));
        },
      },
    },
  ];
}

/** Reads a JSON object body (an empty body is {}); on failure answers and returns undefined. */
async function objectBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
  const r = await readJson(req, MAX_API_BODY, { requireJsonType: false, empty: () => ({}) });
  if (r === 'aborted') return undefined;
  if (!r.ok) {
    if (r.status === 413) sendTooLarge(req, res, r.error);
    else sendError(res, r.status, r.error);
    return undefined;
  }
  if (!isJsonObject(r.value)) {
    sendError(res, 400, 'body must be a JSON object');
    return undefined;
  }
  return r.value;
}

type Checked<T> = T | { error: string };

function listQuery(p: URLSearchParams): Checked<DeliveryListQuery> {
  const q: DeliveryListQuery = {};
  if (p.get('channel')) q.channel = p.get('channel')!;
  if (p.get('status')) q.status = p.get('status') as Verification | ForwardStatus;
  for (const k of ['since', 'before', 'limit'] as const) {
    const v = p.get(k);
    if (v === null || v === '') continue;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) return { error: `${k} must be a non-negative integer` };
    q[k] = n;
  }
  return q;
}

function replayRequest(body: Record<string, unknown>): Checked<{ to?: string; resignSecret?: string }> {
  const { to, resignSecret } = body;
  if (to !== undefined && (typeof to !== 'string' || !/^https?:\/\//.test(to))) return { error: 'to must be an http(s) URL' };
  if (resignSecret !== undefined && (typeof resignSecret !== 'string' || resignSecret === '')) return { error: 'resignSecret must be a non-empty string' };
  return { to: to as string | undefined, resignSecret: resignSecret as string | undefined };
}

function pruneRequest(body: Record<string, unknown>): Checked<{ keep?: number; olderThanMs?: number }> {
  for (const k of ['keep', 'olderThanMs'] as const) {
    const v = body[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 0)) return { error: `${k} must be a non-negative integer` };
  }
  return { keep: body.keep as number | undefined, olderThanMs: body.olderThanMs as number | undefined };
}
