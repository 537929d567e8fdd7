// The emulator's request dispatch: parses the target, answers the unauthenticated routes, checks
// the bearer token, finds the route in the table (routes.ts) and its handler (handlers/*):
// 400 malformed target or percent-encoding, 401, 404 unknown route or repository name, 405 with Allow.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorized, sendError } from '../shared/http';
import { failWith } from './handlers/emulatorOnly';
import type { RouterContext } from './handlers/context';
import { ROUTES, type Route } from './routes';

export type { RouterContext } from './handlers/context';

/** Organization and repository names. */
const NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;
const FAIL_RE = /^\/_emulator\/fail\/([^/]+)$/;
const REPO_PATH_RE = /^\/(api\/v1|_emulator)\/repos\//;

export function createRouter(ctx: RouterContext, routes: readonly Route[] = ROUTES): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async function dispatch(req, res) {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch {
      return refuse(req, res, 400, 'malformed request target');
    }
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    res.on('finish', () => ctx.log(`${method} ${path} → ${res.statusCode}`));

    const failMatch = FAIL_RE.exec(path);
    if (failMatch) return failWith(ctx, req, res, failMatch[1]!);

    const guarded = path === '/api/v1' || path.startsWith('/api/v1/') || path.startsWith('/_emulator/');
    if (guarded && !authorized(req, ctx.token)) {
      req.resume();
      return sendError(res, 401, 'missing or wrong token: send Authorization: Bearer <token>', undefined, { 'www-authenticate': 'Bearer' });
    }
    for (const r of routes) {
      if (r.extension && !ctx.deliveriesEndpoint) continue;
      const m = r.pattern.exec(path);
      if (!m) continue;
      const params = decodeParams(m.slice(1));
      if (!params) return refuse(req, res, 400, 'malformed percent-encoding in the path');
      if (REPO_PATH_RE.test(path) && !params.slice(0, 2).every(isRepoName)) {
        return refuse(req, res, 404, 'no such repository: organization and repository names hold letters, digits, ".", "_" and "-"');
      }
      const handler = r.methods[method];
      if (!handler) {
        const allow = Object.keys(r.methods).join(', ');
        return refuse(req, res, 405, `method ${method} is not allowed here; use ${allow}`, { allow });
      }
      return handler(ctx, req, res, params, url);
    }
    refuse(req, res, 404, `no such endpoint: ${method} ${path}`);
  };
}

/** Answers an error without reading the body. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string, headers?: Record<string, string>): void {
  req.resume();
  sendError(res, status, error, undefined, headers);
}

function decodeParams(raw: string[]): string[] | undefined {
  try {
    return raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function isRepoName(n: string): boolean {
  return NAME_RE.test(n) && n !== '.' && n !== '..';
}
