// The channel page (issue 23 §1): GET / and /page/… on the relay's own port. Sign-in turns a
// channel or admin token into a session cookie and a key for the tab (./sessions.ts); the page then
// calls the relay's own /api with both, which this module turns into the session's bearer token
// after the checks a browser needs: an allowed Host, the tab's key (a cookie alone is no session),
// and for anything that changes state an Origin of this relay and the session's CSRF token. So the API's scoping stays the one authority (a channel
// token sees its channel only; replay to another URL is admin-only). Live updates: ./events.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendError, sendJson } from '../../shared/http';
import { matchRoute, type Route } from '../../shared/routes';
import { clientAddress, hostAllowed, type SourceAllowList } from '../access/access';
import type { RejectLimiter } from '../ingress/rateLimit';
import type { Scope } from '../access/scope';
import type { Refused } from '../access/refusalLog';
import type { RelayStore } from '../base/storeTypes';
import { findAssets, PageAssets } from './assets';
import { LiveStreams, resumeFrom } from './events';
import { explainDelivery } from './explain';
import { csrfMatches, keyMatches, PAGE_KEY_HEADER, Sessions, type Session } from './sessions';

export interface PageContext {
  store: RelayStore;
  authenticate: (token: string | undefined) => Scope | undefined;
  boundHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  tls: boolean;
  /** The reverse proxies whose X-Forwarded-For / X-Forwarded-Proto count (--trust-proxy); undefined: none. */
  trustProxy: SourceAllowList | undefined;
  /** Failed sign-ins per source address: the relay's rate limit for rejected deliveries, a bucket of its own. */
  signInLimiter: RejectLimiter;
  /** Logs and counts a refused sign-in (relay/server/access/refusalLog.ts). */
  refused?: Refused;
  /** The signing secrets of a channel identity, undefined once that channel is gone (for the signature doctor; never sent to the browser). */
  secretsOf: (key: string) => string[] | undefined;
  /** The built page (app.js, app.css); default dist/page beside the CLI. */
  assetsDir?: string;
  sessionMs?: number;
  now?: () => number;
}

export interface Page {
  /** Answers GET / and /page/…; false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /**
   * An /api request without Authorization but with a session cookie: checks Origin and CSRF for
   * state changes and hands the session's token on as the bearer. False when it answered (refused).
   */
  apiAuth(req: IncomingMessage, res: ServerResponse): boolean;
  /** A channel was deleted (or a token rotated): its sessions and live streams end. */
  revoke(): void;
  close(): void;
}

const SAFE = new Set(['GET', 'HEAD']);

/** A page route's handler: params are the route pattern's groups. */
type PageHandler = (req: IncomingMessage, res: ServerResponse, params: string[], url: URL) => void;

export function createPage(ctx: PageContext): Page {
  const sessions = new Sessions(ctx.sessionMs, ctx.now);
  const sessionOf = (req: IncomingMessage) => sessions.of(req, secureRequest(ctx, req));
  const assets = new PageAssets(findAssets(ctx.assetsDir));
  const streams = new LiveStreams(ctx.store);
  const scopeOf = (s: Session | undefined) => (s ? ctx.authenticate(s.token) : undefined);

  const stateChangeOk = (req: IncomingMessage, res: ServerResponse, session: Session | undefined) => checkStateChange(ctx, req, res, session);
  const signIn = (req: IncomingMessage, res: ServerResponse) => signInRequest(ctx, sessions, req, res);

  function signOut(req: IncomingMessage, res: ServerResponse) {
    req.resume();
    const session = sessionOf(req);
    if (!stateChangeOk(req, res, session)) return;
    if (session) {
      sessions.end(session);
      streams.endWhere((s) => s.id === session.id);
    }
    sendJson(res, 200, { signedOut: true }, { 'set-cookie': sessions.clearCookie(secureRequest(ctx, req)) });
  }

  function events(req: IncomingMessage, res: ServerResponse, url: URL) {
    const session = sessionOf(req);
    const scope = scopeOf(session);
    if (!scope) return sendError(res, 401, 'signed out');
    streams.open(req, res, scope, resumeFrom(req, url, ctx.store.lastSeq), session!);
  }

  const routes = pageRoutes(ctx, { assets, sessionOf, scopeOf, signIn, signOut, events });

  return {
    handle(req, res, url) {
      const path = url.pathname;
      if (path !== '/' && !path.startsWith('/page/')) return false;
      if (!hostAllowed(req.headers.host, ctx.boundHost, ctx.allowedHosts)) {
        req.resume();
        sendError(res, 403, 'forbidden Host header');
        return true;
      }
      // A known path asked with another method is not found either: the page has no 405.
      const found = matchRoute(routes, path, req.method ?? 'GET');
      if (found?.handler) found.handler(req, res, found.params, url);
      else {
        req.resume();
        sendError(res, 404, 'not found');
      }
      return true;
    },
    apiAuth(req, res) {
      if (req.headers.authorization !== undefined) return true;
      const session = sessions.named(req, secureRequest(ctx, req));
      if (!session) return true; // the API answers 401
      if (!SAFE.has(req.method ?? 'GET') && !stateChangeOk(req, res, session)) {
        req.resume();
        return false;
      }
      // The cookie alone (which every port of this host gets) is no session: the tab's key must come too.
      if (!keyMatches(session, req.headers[PAGE_KEY_HEADER])) {
        req.resume();
        sendError(res, 401, 'this tab has no key of the session (sign in again on the relay page)');
        return false;
      }
      req.headers.authorization = `Bearer ${session.token}`;
      return true;
    },
    revoke() {
      sessions.prune((token) => ctx.authenticate(token) !== undefined);
      streams.endWhere((s) => !sessions.has(s.id));
    },
    close() {
      streams.close();
    },
  };
}

/** What the page's routes call into (createPage makes them). */
interface PageParts {
  assets: PageAssets;
  sessionOf: (req: IncomingMessage) => Session | undefined;
  scopeOf: (session: Session | undefined) => Scope | undefined;
  signIn: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  signOut: (req: IncomingMessage, res: ServerResponse) => void;
  events: (req: IncomingMessage, res: ServerResponse, url: URL) => void;
}

/** The page's route table: GET / and the assets, the session, live events, a delivery explained. */
function pageRoutes(ctx: PageContext, p: PageParts): Route<PageHandler>[] {
  const { assets, sessionOf, scopeOf, signIn, signOut, events } = p;
  return [
    { pattern: /^\/$/, methods: { GET: (_req, res) => assets.html(res), HEAD: (_req, res) => assets.html(res) } },
    {
      pattern: /^\/page\/(app\.js|app\.css)$/,
      methods: { GET: (_req, res, [name]) => assets.file(res, name!), HEAD: (_req, res, [name]) => assets.file(res, name!) },
    },
    {
      pattern: /^\/page\/session$/,
      methods: {
        POST: (req, res) => void signIn(req, res).catch((err: Error) => sendError(res, 500, err.message)),
        DELETE: signOut,
        GET: (req, res) => {
          const session = sessionOf(req);
          const scope = scopeOf(session);
          if (scope) sendJson(res, 200, who(scope, session!), { 'cache-control': 'no-store' });
          else sendError(res, 401, 'signed out');
        },
      },
    },
    { pattern: /^\/page\/events$/, methods: { GET: (req, res, _params, url) => events(req, res, url) } },
    {
      pattern: /^\/page\/explain\/(\d{1,15})$/,
      methods: {
        GET: (req, res, [seq]) => {
          const scope = scopeOf(sessionOf(req));
          if (!scope) sendError(res, 401, 'signed out');
          else void explainDelivery(res, ctx.store, scope, Number(seq), ctx.secretsOf).catch((err: Error) => sendError(res, 500, err.message));
        },
      },
    },
  ];
}

/** Who the session is; `key` only in the sign-in's answer (the tab that signed in keeps it). */
function who(scope: Scope, session: Session, key?: string) {
  return {
    kind: scope.kind,
    ...(scope.kind === 'channel' ? { channel: scope.channel } : {}),
    ...(key !== undefined ? { key } : {}),
    csrf: session.csrf,
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}

/** Whether the browser reached this relay over HTTPS: its own TLS, or a --trust-proxy proxy's X-Forwarded-Proto: https. */
function secureRequest(ctx: PageContext, req: IncomingMessage): boolean {
  if (ctx.tls) return true;
  const fromProxy = !!ctx.trustProxy?.enabled && ctx.trustProxy.allows(req.socket.remoteAddress);
  return fromProxy && req.headers['x-forwarded-proto'] === 'https';
}

/** This relay's Origin (or an --allow-origin one) and, with a session, its CSRF token; else 403 answered. */
function checkStateChange(ctx: PageContext, req: IncomingMessage, res: ServerResponse, session: Session | undefined): boolean {
  const origin = req.headers.origin;
  const proto = secureRequest(ctx, req) ? 'https' : 'http';
  const sameOrigin = origin !== undefined && (origin === `${proto}://${req.headers.host}` || ctx.allowedOrigins.includes(origin));
  if (!sameOrigin) return (sendError(res, 403, 'cross-site request refused (Origin is not this relay)'), false);
  if (session && !csrfMatches(session, req.headers['x-csrf-token'])) return (sendError(res, 403, 'missing or wrong CSRF token; reload the page'), false);
  return true;
}

/** POST /page/session { token }: a session cookie, or 401 (then 429 past the rate limit). */
async function signInRequest(ctx: PageContext, sessions: Sessions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!checkStateChange(ctx, req, res, undefined)) return void req.resume();
  const source = clientAddress(req, ctx.trustProxy);
  const body = await readJson(req, 4096, { requireJsonType: false, empty: () => ({}) });
  if (body === 'aborted') return;
  const given = body.ok ? (body.value as { token?: unknown } | null)?.token : undefined;
  const token = typeof given === 'string' ? given.trim() : '';
  const scope = token ? ctx.authenticate(token) : undefined;
  if (!scope) {
    const limited = !ctx.signInLimiter.take(source);
    ctx.refused?.(req, limited ? 'rate-limit' : 'token', 'a page sign-in');
    if (limited) {
      const retry = String(ctx.signInLimiter.retryAfter(source));
      return sendError(res, 429, `too many wrong tokens from this address; try again in ${retry} s`, undefined, { 'retry-after': retry });
    }
    return sendError(res, 401, 'that is not a token of this relay (use the admin token or a channel token)');
  }
  const session = sessions.create(token);
  if (!session) return sendError(res, 503, 'the relay holds as many page sessions as it keeps; try again once some expire');
  sendJson(res, 200, who(scope, session, session.key), { 'set-cookie': sessions.setCookie(session, secureRequest(ctx, req)), 'cache-control': 'no-store' });
}
