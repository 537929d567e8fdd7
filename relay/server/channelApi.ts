// The channels routes of the REST API (admin token; a channel token may read only its own channel):
//
//   GET    /api/channels          → 200 { channels: ChannelInfo[] }            (admin)
//   POST   /api/channels          → 201 CreatedChannel ({ name, secrets })      (admin)
//            400 bad name/body, or no secret on a --public relay · 409 name taken (also 'default'
//            and --config names) · 507 at the 10,000-channel limit · 500 the registry could not be written
//   GET    /api/channels/<name>   → 200 ChannelInfo                            (admin, or its own token)
//   DELETE /api/channels/<name>   → 204; its token stops working, its streams close, its URL
//            answers 404 · 404 no such channel · 409 a --config or the default channel  (admin)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RelayLog } from './log';
import type { CreateChannelRequest } from '../../src/core/relay/protocol';
import { sendEmpty, sendError, sendJson } from '../shared/http';
import { CHANNEL_RE } from './channels';
import { ChannelError } from './channelRegistry';
import type { ChannelDirectory } from './channelDirectory';
import type { Scope } from './scope';
import type { RelayStore } from './storeTypes';
import type { Handler, Route } from './api';

export interface ChannelApiContext {
  directory: ChannelDirectory;
  store: RelayStore;
  /** Reads a JSON object body, or answers (400/413) and returns undefined. */
  objectBody: (req: IncomingMessage, res: ServerResponse) => Promise<Record<string, unknown> | undefined>;
  /** Told after a channel is deleted (closes its token's WebSocket streams). */
  onDeleted: (name: string) => void;
  log: RelayLog;
}

export const NAME_RULE = "name must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";
const MAX_SECRETS = 16;
const MAX_SECRET_LENGTH = 1024;

type Checked<T> = T | { error: string };

export function createChannelRequest(body: Record<string, unknown>, strict: boolean): Checked<CreateChannelRequest> {
  const extra = Object.keys(body).find((k) => k !== 'name' && k !== 'secrets');
  if (extra !== undefined) return { error: `unknown field '${extra}' (expected { name, secrets })` };
  const { name, secrets } = body;
  if (typeof name !== 'string' || !CHANNEL_RE.test(name)) return { error: NAME_RULE };
  if (!Array.isArray(secrets) || !secrets.every((s) => typeof s === 'string' && s !== '')) return { error: 'secrets must be an array of non-empty strings' };
  if (secrets.length > MAX_SECRETS || secrets.some((s: string) => s.length > MAX_SECRET_LENGTH)) {
    return { error: `at most ${MAX_SECRETS} secrets of at most ${MAX_SECRET_LENGTH} characters` };
  }
  if (strict && secrets.length === 0) return { error: 'a --public relay never accepts unverified deliveries: a channel needs at least one secret' };
  return { name, secrets: secrets as string[] };
}

/** The answer for a channel token on an admin route. */
export function adminOnly(res: ServerResponse): void {
  sendError(res, 403, 'this needs the admin token (the relay token); a channel token is limited to its own channel');
}

/** A handler only the admin token may call; a channel token gets 403. */
export const requireAdmin =
  (h: Handler): Handler =>
  (req, res, params, url, scope) => {
    if (scope.kind === 'admin') return h(req, res, params, url, scope);
    req.resume();
    adminOnly(res);
  };

export function channelRoutes(ctx: ChannelApiContext): Route[] {
  return [
    {
      pattern: /^\/api\/channels$/,
      methods: {
        GET: requireAdmin((_req, res) => listChannels(ctx, res)),
        POST: requireAdmin((req, res) => createChannel(ctx, req, res)),
      },
    },
    {
      pattern: /^\/api\/channels\/([^/]+)$/,
      methods: {
        GET: (_req, res, p, _u, scope) => getChannel(ctx, res, decodeName(p[0]!), scope),
        DELETE: requireAdmin((_req, res, p) => deleteChannel(ctx, res, decodeName(p[0]!))),
      },
    },
  ];
}

/** A percent-decoded path segment ('' when malformed, which no channel is called). */
function decodeName(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

export function listChannels(ctx: ChannelApiContext, res: ServerResponse): void {
  sendJson(res, 200, { channels: ctx.directory.list(ctx.store.channels()) });
}

export function getChannel(ctx: ChannelApiContext, res: ServerResponse, name: string, scope: Scope): void {
  const info = scope.kind === 'admin' || scope.channel === name ? ctx.directory.info(name, ctx.store.channels()) : undefined;
  if (info) sendJson(res, 200, info);
  else sendError(res, 404, `no channel '${name}'`);
}

export async function createChannel(ctx: ChannelApiContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await ctx.objectBody(req, res);
  if (!body) return;
  const r = createChannelRequest(body, ctx.directory.strict);
  if ('error' in r) return sendError(res, 400, r.error);
  const taken = ctx.directory.taken(r.name);
  if (taken) return sendError(res, 409, taken);
  try {
    const created = await ctx.directory.create(r.name, r.secrets);
    ctx.log(`channel '${r.name}' created`, { channel: r.name });
    sendJson(res, 201, created);
  } catch (err) {
    if (err instanceof ChannelError) return sendError(res, err.kind === 'exists' ? 409 : 507, err.message);
    ctx.log(`channel '${r.name}' not created: ${(err as Error).message}`, { level: 'error', channel: r.name });
    sendError(res, 500, 'the channel registry could not be written');
  }
}

export async function deleteChannel(ctx: ChannelApiContext, res: ServerResponse, name: string): Promise<void> {
  const fixed = ctx.directory.fixed(name);
  if (fixed) return sendError(res, 409, fixed);
  try {
    await ctx.directory.registry.delete(name);
  } catch (err) {
    if (err instanceof ChannelError) return sendError(res, 404, err.message);
    ctx.log(`channel '${name}' not deleted: ${(err as Error).message}`, { level: 'error', channel: name });
    return sendError(res, 500, 'the channel registry could not be written');
  }
  ctx.onDeleted(name);
  ctx.log(`channel '${name}' deleted`, { channel: name });
  sendEmpty(res, 204);
}
