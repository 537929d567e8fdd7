// The relay's REST API on a route table. Every route needs an allowed Host (DNS rebinding) and a
// token: the relay (admin) token for everything, or a channel token for its own channel only
// (relay/server/access/scope.ts: another channel's delivery is 404, admin-only routes 403). Errors are { "error": "<message>" }: 400 bad query or body · 401 · 403 Host ·
// 404 unknown route or seq · 405 wrong method (with Allow) · 413 body over 64 KiB · 415 never
// (bodies are read as JSON whatever their Content-Type) · 500 a journal read or write failed.
//
//   GET  /api/status                      → 200 RelayStatus
//   GET  /api/deliveries?channel=&status=&since=&before=&limit=  → 200 DeliveryList, newest first.
//        status: verified | unverified | rejected | pending | ok | failed (anything else: 400);
//        since=N keeps seq > N, before=N keeps seq < N (page back with before=<smallest seq seen>);
//        limit: default 100, at most 10,000; limit=0 answers an empty list.
//        event= (exactly), verification=, forward= (ok | pending | failed | none), deliveryId= (a
//        part, any case): filters over the whole channel, not the newest page (the page's filters)
//   GET  /api/deliveries/<seq>            → 200 RelayDelivery; a rejected one also has `explanation` and `signatureMatchesNow`: the
//        signature doctor's findings with the current secrets of the channel it came to (by identity, name@generation;
//        once that channel is gone, a finding that says so), and whether its signature verifies with them now
//        (relay/server/api/explainRejected.ts)
//   POST /api/deliveries/<seq>/replay     → 200 ReplayResponse ({ to?, resignSecret? }); with { to: "subscribers" }
//        → 202 SubscriberReplayResponse: sent again to the subscribers connected to its channel
//        (409 when none is; the admin token or the channel's own, like the other replays)
//   POST /api/forward/retry               → 200 RetryPendingResponse ({ channel?, target? }): retry pending now
//   POST /api/prune                       → 200 PruneResponse ({ keep?, olderThanMs? })  (admin)
//   /api/channels, /api/channels/<name>   → relay/server/api/channelApi.ts
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  REPLAY_TO_SUBSCRIBERS,
  type ChannelStatus,
  type ForwardStatus,
  type RelayStatus,
  type RetryPendingResponse,
  type SubscriberReplayResponse,
  type Verification,
} from '../../../src/core/relay/protocol';
import { bearer, isJsonObject, readJsonOrRefuse, sendError, sendJson } from '../../shared/http';
import { matchRoute } from '../../shared/routes';
import { hostAllowed } from '../access/access';
import { explainRejected } from './explainRejected';
import { adminOnly, channelRoutes, requireAdmin as admin } from './channelApi';
import type { ChannelDirectory } from '../channels/channelDirectory';
import { scopedChannel, sees, type Scope } from '../access/scope';
import type { Forwarder, RetryFilter } from '../forwarding/forwarder';
import { parseRetryRequest } from './retryRequest';
import { parseDeliveryFilter } from '../../../src/core/relay/deliveryFilter';
import { restPattern } from '../../../src/core/relay/restPaths';
import type { KeyedChannelStatus, RelayStore, StoreListQuery } from '../base/storeTypes';
import type { RelayLog } from '../base/log';
import type { Route } from './apiRoute';
import type { Refused } from '../access/refusalLog';

export interface ApiContext {
  store: RelayStore;
  forwarder: Forwarder;
  /** Sends a delivery again to the subscribers connected to its channel; resolves to how many (SubscriberHub.replay). */
  replayToSubscribers?: (seq: number) => Promise<number>;
  /** "Retry pending now" (POST /api/forward/retry): the local forwarder's, or on JetStream the shared forwarding's. */
  retryNow: (filter: RetryFilter) => number;
  /** The scope of a bearer token; undefined: 401. */
  authenticate: (given: string | undefined) => Scope | undefined;
  channels: ChannelDirectory;
  /** Told after a channel is deleted (its streams close). */
  onChannelDeleted: (name: string) => void;
  log: RelayLog;
  boundHost: string;
  allowedHosts: readonly string[];
  /** The port the relay listens on (known once it listens). */
  port: () => number;
  /** Logs and counts a refused request (../access/refusalLog.ts). */
  refused?: Refused;
  /** Adds the allow-list's refusals to channel counts (../ingress/refusals.ts). */
  withRefusals?: <T extends ChannelStatus>(counts: T[], blank: (row: ChannelStatus) => T) => T[];
}

/** API request bodies are small JSON objects. */
export const MAX_API_BODY = 64 * 1024;

export function createApi(ctx: ApiContext): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  const routes = apiRoutes(ctx);
  return async function api(req, res, url) {
    if (!hostAllowed(req.headers.host, ctx.boundHost, ctx.allowedHosts))
      return (ctx.refused?.(req, 'host', 'an API request'), refuse(req, res, 403, 'forbidden Host header'));
    const scope = ctx.authenticate(bearer(req));
    if (!scope)
      return (
        ctx.refused?.(req, 'token', 'an API request'),
        refuse(req, res, 401, "missing or wrong relay token (a deleted channel's token is refused too)", { 'www-authenticate': 'Bearer' })
      );
    const found = matchRoute(routes, url.pathname, req.method ?? 'GET');
    if (!found) return refuse(req, res, 404, 'not found');
    if (found.handler) return found.handler(req, res, found.params, url, scope);
    return refuse(req, res, 405, `method ${req.method} is not allowed here; use ${found.allow}`, { allow: found.allow });
  };
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string, headers: Record<string, string> = {}): void {
  req.resume();
  sendError(res, status, error, undefined, headers);
}

// One route a line, as written: Prettier's layout would take this function past the 100-line
// limit of test/unit/style.test.ts.
// prettier-ignore
function apiRoutes(ctx: ApiContext): Route[] {
  const { store } = ctx;
  /** Whether delivery `seq` exists and `scope` may see it. */
  const visible = (seq: number, scope: Scope) => {
    const e = store.get(seq);
    return e !== undefined && sees(scope, e.channelKey);
  };
  const keyOf = (name: string) => ctx.channels.registry.keyOf(name);
  /** The relay-wide lastSeq for the admin; a channel token's own channel's only. */
  const lastSeqFor = (scope: Scope) => (scope.kind === 'admin' ? store.lastSeq : store.lastSeqOf(scope.key));
  return [
    {
      pattern: restPattern('status'),
      methods: {
        GET: (_req, res, _p, _u, scope) => {
          // Only channels the relay serves, as GET /api/channels: a deleted channel's deliveries stay
          // in the journal, but its URL answers 404 and must not be offered.
          const counts = byName(store.channels().filter((c) => sees(scope, c.key) && ctx.channels.lookup(c.name).ok));
          const channels = (ctx.withRefusals?.(counts, (r) => r) ?? counts).map((c) => ({ ...c, ingressUrl: ctx.channels.ingressUrl(c.name) }));
          // A channel token sees its own channel before its first delivery too (the editor offers its URL).
          if (scope.kind === 'channel' && !channels.some((c) => c.name === scope.channel)) {
            channels.push({ name: scope.channel, received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0, ingressUrl: ctx.channels.ingressUrl(scope.channel) });
          }
          sendJson(res, 200, { port: ctx.port(), ingressBase: ctx.channels.ingressBase, channels, lastSeq: lastSeqFor(scope), ...(scope.kind === 'admin' ? { journal: store.integrity() } : {}) } satisfies RelayStatus);
        },
      },
    },
    {
      pattern: restPattern('deliveries'),
      methods: {
        GET: (_req, res, _p, url, scope) => {
          const q = listQuery(url.searchParams);
          if ('error' in q) return sendError(res, 400, q.error);
          const filter = parseDeliveryFilter(url.searchParams);
          if ('error' in filter) return sendError(res, 400, filter.error);
          q.filter = filter;
          const narrowed = scopedChannel(scope, q.channel, keyOf);
          if ('error' in narrowed) return sendError(res, 403, narrowed.error);
          q.channel = narrowed.channel;
          sendJson(res, 200, { deliveries: q.limit === 0 ? [] : store.list(q), lastSeq: lastSeqFor(scope) });
        },
      },
    },
    {
      pattern: restPattern('delivery'),
      methods: {
        GET: async (_req, res, p, _u, scope) => {
          const d = visible(Number(p[0]), scope) ? await store.detail(Number(p[0])) : undefined;
          if (!d) return sendError(res, 404, `no delivery ${p[0]}`);
          if (d.verification !== 'rejected') return sendJson(res, 200, d);
          // A rejected delivery: the doctor's words, with its own channel's secrets (by identity), which stay here.
          const key = store.get(d.seq)?.channelKey;
          return sendJson(res, 200, { ...d, ...explainRejected(d, key === undefined ? undefined : ctx.channels.secretsOfKey(key)) });
        },
      },
    },
    {
      pattern: restPattern('replay'),
      methods: {
        POST: (req, res, p, _u, scope) => replay(ctx, req, res, Number(p[0]), visible(Number(p[0]), scope) ? scope : undefined),
      },
    },
    {
      pattern: restPattern('retryPending'),
      methods: {
        POST: async (req, res, _p, _u, scope) => {
          const body = await objectBody(req, res);
          if (!body) return;
          const filter = parseRetryRequest(body);
          if ('error' in filter) return sendError(res, 400, filter.error);
          if (scope.kind === 'channel' && filter.channel !== undefined && filter.channel !== scope.channel) return sendError(res, 403, `this token is limited to channel '${scope.channel}'`);
          // An API channel has no server-side targets: nothing of its own is pending. (Its name's
          // earlier deliveries, of an earlier channel, are not its token's to hurry.)
          if (scope.kind === 'channel' && scope.key !== scope.channel) return sendJson(res, 200, { queued: 0 } satisfies RetryPendingResponse);
          if (scope.kind === 'channel') filter.channel = scope.channel;
          sendJson(res, 200, { queued: ctx.retryNow(filter) } satisfies RetryPendingResponse);
        },
      },
    },
    {
      pattern: restPattern('prune'),
      methods: {
        POST: admin(async (req, res) => {
          const body = await objectBody(req, res);
          if (!body) return;
          const r = pruneRequest(body);
          if ('error' in r) return sendError(res, 400, r.error);
          sendJson(res, 200, await store.prune(r));
        }),
      },
    },
    ...channelRoutes({ directory: ctx.channels, store, objectBody, onDeleted: ctx.onChannelDeleted, log: ctx.log, counts: () => ctx.withRefusals?.(store.channels(), (r) => ({ ...r, key: ctx.channels.registry.keyOf(r.name) })) ?? store.channels() }),
  ];
}

/** POST /api/deliveries/<seq>/replay; `scope` undefined: the caller may not see delivery `seq` (404). */
async function replay(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, seq: number, scope: Scope | undefined): Promise<void> {
  const body = await objectBody(req, res);
  if (!body) return;
  const r = replayRequest(body);
  if ('error' in r) return sendError(res, 400, r.error);
  if (!scope) return sendError(res, 404, `no delivery ${seq}`);
  if (r.to === REPLAY_TO_SUBSCRIBERS) return replayToSubscribers(ctx, res, seq, r.resignSecret);
  if (r.to !== undefined && scope.kind !== 'admin') return adminOnly(res);
  const attempts = await ctx.forwarder.replay(seq, r);
  return attempts ? sendJson(res, 200, { attempts }) : sendError(res, 404, `no delivery ${seq}`);
}

/** POST …/replay { to: 'subscribers' } of a delivery the caller may see: 202 { subscribers }, or 409 when none is connected. */
async function replayToSubscribers(ctx: ApiContext, res: ServerResponse, seq: number, resignSecret: string | undefined): Promise<void> {
  if (resignSecret !== undefined) return sendError(res, 400, 'resignSecret cannot be used with to: "subscribers" (subscribers get the delivery as received)');
  const n = (await ctx.replayToSubscribers?.(seq)) ?? 0;
  if (n === 0)
    return sendError(
      res,
      409,
      `no subscriber of channel ${ctx.store.get(seq)?.summary.channel ?? '?'} is connected (start \`service-hooks forward\` or Connect to Relay in the editor, then replay again)`,
    );
  return sendJson(res, 202, { subscribers: n } satisfies SubscriberReplayResponse);
}

/** Counts per channel name (the store keeps them per channel identity: a re-created name has several). */
function byName(rows: readonly KeyedChannelStatus[]): ChannelStatus[] {
  const out = new Map<string, ChannelStatus>();
  for (const { key: _key, ...r } of rows) {
    const c = out.get(r.name);
    if (!c) out.set(r.name, { ...r });
    else {
      for (const k of ['received', 'verified', 'unverified', 'rejected', 'forwarded', 'failed'] as const) c[k] += r[k];
      c.pending = (c.pending ?? 0) + (r.pending ?? 0);
    }
  }
  return [...out.values()];
}

/** Reads a JSON object body (an empty body is {}); on failure answers and returns undefined. */
async function objectBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
  const r = await readJsonOrRefuse(req, res, MAX_API_BODY, { requireJsonType: false, empty: () => ({}) });
  if (!r) return undefined;
  if (!isJsonObject(r.value)) {
    sendError(res, 400, 'body must be a JSON object');
    return undefined;
  }
  return r.value;
}

type Checked<T> = T | { error: string };

const STATUSES: readonly (Verification | ForwardStatus)[] = ['verified', 'unverified', 'rejected', 'pending', 'ok', 'failed'];

function listQuery(p: URLSearchParams): Checked<StoreListQuery> {
  const q: StoreListQuery = {};
  if (p.get('channel')) q.channel = p.get('channel')!;
  const status = p.get('status');
  if (status) {
    if (!STATUSES.includes(status as Verification)) return { error: `status must be one of ${STATUSES.join(', ')}, got '${status.slice(0, 50)}'` };
    q.status = status as Verification | ForwardStatus;
  }
  for (const k of ['since', 'before', 'limit'] as const) {
    const v = p.get(k);
    if (v === null || v === '') continue;
    if (!/^\d{1,15}$/.test(v)) return { error: `${k} must be a non-negative integer, got '${v.slice(0, 50)}'` };
    q[k] = Number(v);
  }
  return q;
}

function replayRequest(body: Record<string, unknown>): Checked<{ to?: string; resignSecret?: string }> {
  const { to, resignSecret } = body;
  if (to !== undefined && to !== REPLAY_TO_SUBSCRIBERS && (typeof to !== 'string' || !/^https?:\/\//.test(to)))
    return { error: 'to must be an http(s) URL or "subscribers"' };
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
