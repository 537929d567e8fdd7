// The channel page (issue 23 §1): GET / and /page/… on the relay's own port. Sign-in turns a
// channel or admin token into a session cookie and a key for the tab (./sessions.ts); the page then
// calls the relay's own /api with both, which this module turns into the session's bearer token
// after the checks a browser needs: an allowed Host, the tab's key (a cookie alone is no session),
// and for anything that changes state an Origin of this relay and the session's CSRF token. So the API's scoping stays the one authority (a channel
// token sees its channel only; replay to another URL is admin-only). Live updates: ./events.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendError, sendJson } from '../../shared/http';
import { matchRoute, type Route } from '../../shared/routes';
import { restPattern } from '../../../src/core/relay/restPaths';
import { clientAddress, hostAllowed, type SourceAllowList } from '../access/access';
import type { RejectLimiter } from '../ingress/rateLimit';
import type { Scope } from '../access/scope';
import type { Refused } from '../access/refusalLog';
import type { RelayStore } from '../base/storeTypes';
import { StoreUnavailableError } from '../base/errors';
import { findAssets, PageAssets } from './assets';
import { LiveStreams, resumeFrom } from './events';
import { explainDelivery } from './explain';
import { ADMIN_SCOPE, csrfMatches, keyMatches, PAGE_KEY_HEADER, Sessions, type Session } from './sessions';

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
  apiAuth(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** A channel was deleted (or a token rotated): its sessions and live streams end. */
  revoke(): void;
  /** The sessions (a shared store shares them with its other instances: SessionShare). */
  sessions: Sessions;
  close(): void;
}

const SAFE = new Set(['GET', 'HEAD']);

/** A page route's handler: params are the route pattern's groups. */
type PageHandler = (req: IncomingMessage, res: ServerResponse, params: string[], url: URL) => void;

export function createPage(ctx: PageContext): Page {
  const sessions = new Sessions(ctx.sessionMs, ctx.now);
  const assets = new PageAssets(findAssets(ctx.assetsDir));
  const streams = new LiveStreams(ctx.store);
  // Ended here or at another instance of a shared store: its live streams here end too.
  sessions.onEnded(() => streams.endWhere((s) => !sessions.has(s.id)));
  const scopeOf = (s: Session | undefined) => (s ? ctx.authenticate(s.token) : undefined);
  /** The request's session and what its token may see now; a session whose token no longer authenticates is ended. */
  const signedIn = async (req: IncomingMessage) => {
    const session = await sessions.find(req, secureRequest(ctx, req));
    const scope = scopeOf(session);
    // Only tidying (the token is refused everywhere already), so not waited for and not an error.
    if (session && !scope) void sessions.end(session).catch(() => undefined);
    return scope && session ? { session, scope } : undefined;
  };

  const stateChangeOk = (req: IncomingMessage, res: ServerResponse, session: Session | undefined) => checkStateChange(ctx, req, res, session);
  const signIn = (req: IncomingMessage, res: ServerResponse) => signInRequest(ctx, sessions, req, res);

  async function signOut(req: IncomingMessage, res: ServerResponse) {
    req.resume();
    const session = await sessions.find(req, secureRequest(ctx, req));
    if (!stateChangeOk(req, res, session)) return;
    if (session) await sessions.end(session);
    sendJson(res, 200, { signedOut: true }, { 'set-cookie': sessions.clearCookie(secureRequest(ctx, req)) });
  }

  async function events(req: IncomingMessage, res: ServerResponse, url: URL) {
    const s = await signedIn(req);
    if (!s) return sendError(res, 401, 'signed out');
    streams.open(req, res, s.scope, resumeFrom(req, url, ctx.store.lastSeq), s.session);
  }

  async function whoAmI(req: IncomingMessage, res: ServerResponse) {
    const s = await signedIn(req);
    if (s) sendJson(res, 200, who(s.scope, s.session), { 'cache-control': 'no-store' });
    else sendError(res, 401, 'signed out');
  }

  async function explain(req: IncomingMessage, res: ServerResponse, seq: number) {
    const s = await signedIn(req);
    if (!s) sendError(res, 401, 'signed out');
    else await explainDelivery(res, ctx.store, s.scope, seq, ctx.secretsOf);
  }

  const routes = pageRoutes({ assets, signIn, signOut, whoAmI, events, explain });

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
    async apiAuth(req, res) {
      if (req.headers.authorization !== undefined) return true;
      const session = await sessions.findNamed(req, secureRequest(ctx, req));
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
      // A failure to tell the shared store leaves records no request can use: each authenticates its token again.
      void sessions.prune((scope) => scope === ADMIN_SCOPE || ctx.secretsOf(scope) !== undefined).catch(() => undefined);
      streams.endWhere((s) => ctx.authenticate(s.token) === undefined);
    },
    sessions,
    close() {
      streams.close();
    },
  };
}

/** What the page's routes call into (createPage makes them); each async one is answered by failed() if it throws. */
interface PageParts {
  assets: PageAssets;
  signIn: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  signOut: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  whoAmI: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  events: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
  explain: (req: IncomingMessage, res: ServerResponse, seq: number) => Promise<void>;
}

/** A request that failed after it was taken: 503 with Retry-After while the shared store does not answer, else 500. */
function failed(res: ServerResponse) {
  return (err: Error) => {
    if (res.headersSent) res.destroy();
    else if (err instanceof StoreUnavailableError) sendError(res, 503, err.message, undefined, { 'retry-after': '5' });
    else sendError(res, 500, err.message);
  };
}

/** The page's route table: GET / and the assets, the session, live events, a delivery explained. */
function pageRoutes(p: PageParts): Route<PageHandler>[] {
  const { assets, signIn, signOut, whoAmI, events, explain } = p;
  return [
    { pattern: /^\/$/, methods: { GET: (_req, res) => assets.html(res), HEAD: (_req, res) => assets.html(res) } },
    {
      pattern: /^\/page\/(app\.js|app\.css)$/,
      methods: { GET: (_req, res, [name]) => assets.file(res, name!), HEAD: (_req, res, [name]) => assets.file(res, name!) },
    },
    {
      pattern: restPattern('pageSession'),
      methods: {
        POST: (req, res) => void signIn(req, res).catch(failed(res)),
        DELETE: (req, res) => void signOut(req, res).catch(failed(res)),
        GET: (req, res) => void whoAmI(req, res).catch(failed(res)),
      },
    },
    { pattern: restPattern('pageEvents'), methods: { GET: (req, res, _params, url) => void events(req, res, url).catch(failed(res)) } },
    { pattern: restPattern('pageExplain'), methods: { GET: (req, res, [seq]) => void explain(req, res, Number(seq)).catch(failed(res)) } },
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
    return sendError(res, 401, "that is not a token of this relay: a wrong one, or a deleted channel's (use the admin token or a channel token)");
  }
  const session = await sessions.start(token, scope.kind === 'admin' ? ADMIN_SCOPE : scope.key);
  if (!session) return sendError(res, 503, 'the relay holds as many page sessions as it keeps; try again once some expire');
  sendJson(res, 200, who(scope, session, session.key), { 'set-cookie': sessions.setCookie(session, secureRequest(ctx, req)), 'cache-control': 'no-store' });
}
