// The channels routes of the REST API (admin token; a channel token may read only its own channel):
//
//   GET    /api/channels          → 200 { channels: ChannelInfo[] }            (admin)
//   POST   /api/channels          → 201 CreatedChannel ({ name, secrets })      (admin); with a
//            `warning` when a secret has under 16 bytes (a --public relay refuses it: 400)
//            400 bad name/body, or no secret on a --public relay · 409 name taken (also 'default'
//            and --config names) · 507 at the 10,000-channel limit · 500 the registry could not be written
//   GET    /api/channels/<name>   → 200 ChannelInfo                            (admin, or its own token)
//   PATCH  /api/channels/<name>   → 200 ChannelInfo ({ secrets } replaces the signing secrets,
//            { addSecrets } adds to them; the token stays): rotation without downtime: add the new
//            secret, change the webhook, then keep only the new one. `warning` as create's for a
//            short secret. 400 bad body; `{ secrets: [] }` (unsigned deliveries accepted from then
//            on) without `allowUnsigned: true`; no secret left on a --public relay · 404 no such
//            channel · 409 a --config or the default channel  (admin)
//   DELETE /api/channels/<name>   → 204; its token stops working, its streams close, its URL
//            answers 404 · 404 no such channel · 409 a --config or the default channel  (admin)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RelayLog } from '../base/log';
import type { CreateChannelRequest } from '../../../src/core/relay/protocol';
import { sendEmpty, sendError, sendJson } from '../../shared/http';
import { CHANNEL_RE, MIN_SECRET_BYTES } from '../channels/channels';
import { CHANNEL_NAME_RULE } from '../../../src/core/relay/channelName';
import { ChannelError } from '../channels/channelRegistry';
import type { ChannelDirectory } from '../channels/channelDirectory';
import type { Scope } from '../access/scope';
import type { KeyedChannelStatus, RelayStore } from '../base/storeTypes';
import type { Handler, Route } from './apiRoute';
import { restPattern } from '../../../src/core/relay/restPaths';

export interface ChannelApiContext {
  directory: ChannelDirectory;
  store: RelayStore;
  /** Reads a JSON object body, or answers (400/413) and returns undefined. */
  objectBody: (req: IncomingMessage, res: ServerResponse) => Promise<Record<string, unknown> | undefined>;
  /** Told after a channel is deleted (closes its token's WebSocket streams). */
  onDeleted: (name: string) => void;
  log: RelayLog;
  /** Channel counts with what the store does not keep (the allow-list's refusals); default store.channels(). */
  counts?: () => KeyedChannelStatus[];
}

const countsOf = (ctx: ChannelApiContext): KeyedChannelStatus[] => ctx.counts?.() ?? ctx.store.channels();

export const NAME_RULE = `name must be ${CHANNEL_NAME_RULE}`;
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
  const short = strict ? shortSecretError(secrets as string[]) : undefined;
  if (short) return { error: short };
  return { name, secrets: secrets as string[] };
}

/** A --public relay's refusal of secrets under MIN_SECRET_BYTES, or undefined. */
function shortSecretError(secrets: readonly string[]): string | undefined {
  const short = secrets.findIndex((s) => Buffer.byteLength(s) < MIN_SECRET_BYTES);
  return short < 0
    ? undefined
    : `secret #${short + 1} has fewer than ${MIN_SECRET_BYTES} bytes: a --public relay refuses secrets that short (e.g. openssl rand -hex 32)`;
}

/** The warning for secrets under MIN_SECRET_BYTES (a local relay accepts them), or undefined. */
export function weakSecretWarning(secrets: readonly string[]): string | undefined {
  const short = secrets.findIndex((s) => Buffer.byteLength(s) < MIN_SECRET_BYTES);
  return short < 0 ? undefined : `secret #${short + 1} has fewer than ${MIN_SECRET_BYTES} bytes; a short secret can be guessed (use e.g. openssl rand -hex 32)`;
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
      pattern: restPattern('channels'),
      methods: {
        GET: requireAdmin((_req, res) => listChannels(ctx, res)),
        POST: requireAdmin((req, res) => createChannel(ctx, req, res)),
      },
    },
    {
      pattern: restPattern('channel'),
      methods: {
        GET: (_req, res, p, _u, scope) => getChannel(ctx, res, decodeName(p[0]!), scope),
        PATCH: requireAdmin((req, res, p) => patchChannel(ctx, req, res, decodeName(p[0]!))),
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
  sendJson(res, 200, { channels: ctx.directory.list(countsOf(ctx)) });
}

export function getChannel(ctx: ChannelApiContext, res: ServerResponse, name: string, scope: Scope): void {
  const info =
    scope.kind === 'admin' || (scope.channel === name && scope.key === ctx.directory.registry.keyOf(name))
      ? ctx.directory.info(name, countsOf(ctx))
      : undefined;
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
    const warning = weakSecretWarning(r.secrets);
    ctx.log(`channel '${r.name}' created${warning ? `; warning: ${warning}` : ''}`, { channel: r.name, ...(warning ? { level: 'warn' as const } : {}) });
    sendJson(res, 201, warning ? { ...created, warning } : created);
  } catch (err) {
    if (err instanceof ChannelError) return sendError(res, err.kind === 'exists' ? 409 : 507, err.message);
    ctx.log(`channel '${r.name}' not created: ${(err as Error).message}`, { level: 'error', channel: r.name });
    sendError(res, 500, 'the channel registry could not be written');
  }
}

export const UNSIGNED_PATCH_ERROR =
  'secrets: [] would make the channel accept unsigned deliveries from anyone who knows its URL; to mean it, send { "secrets": [], "allowUnsigned": true }';

/**
 * The body of PATCH /api/channels/<name>: exactly one of `secrets` (replace) and `addSecrets`.
 * An empty `secrets` (no signature checked from then on) only with `allowUnsigned: true`.
 */
export function patchChannelRequest(body: Record<string, unknown>): Checked<{ secrets: string[]; add: boolean }> {
  const extra = Object.keys(body).find((k) => k !== 'secrets' && k !== 'addSecrets' && k !== 'allowUnsigned');
  if (extra !== undefined) return { error: `unknown field '${extra}' (expected { secrets } or { addSecrets })` };
  if (body.allowUnsigned !== undefined && body.allowUnsigned !== true) return { error: 'allowUnsigned must be true when given' };
  if ((body.secrets === undefined) === (body.addSecrets === undefined))
    return { error: 'give exactly one of secrets (replaces them) and addSecrets (adds to them)' };
  const add = body.addSecrets !== undefined;
  const list = add ? body.addSecrets : body.secrets;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string' && s !== ''))
    return { error: `${add ? 'addSecrets' : 'secrets'} must be an array of non-empty strings` };
  if (list.some((s: string) => s.length > MAX_SECRET_LENGTH)) return { error: `secrets of at most ${MAX_SECRET_LENGTH} characters` };
  if (!add && list.length === 0 && body.allowUnsigned !== true) return { error: UNSIGNED_PATCH_ERROR };
  return { secrets: list as string[], add };
}

export async function patchChannel(ctx: ChannelApiContext, req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
  const body = await ctx.objectBody(req, res);
  if (!body) return;
  const r = patchChannelRequest(body);
  if ('error' in r) return sendError(res, 400, r.error);
  const fixed = ctx.directory.fixed(name);
  if (fixed) return sendError(res, 409, fixed.replace('cannot be deleted', 'cannot be changed here; use --secret'));
  const current = ctx.directory.registry.get(name);
  if (!current) return sendError(res, 404, `no channel '${name}'`);
  const secrets = r.add ? [...current.secrets, ...r.secrets.filter((s) => !current.secrets.includes(s))] : [...new Set(r.secrets)];
  if (secrets.length > MAX_SECRETS) return sendError(res, 400, `at most ${MAX_SECRETS} secrets`);
  if (ctx.directory.strict && secrets.length === 0)
    return sendError(res, 400, 'a --public relay never accepts unverified deliveries: a channel needs at least one secret');
  const short = ctx.directory.strict ? shortSecretError(r.secrets) : undefined;
  if (short) return sendError(res, 400, short);
  try {
    await ctx.directory.registry.setSecrets(name, secrets);
  } catch (err) {
    if (err instanceof ChannelError) return sendError(res, 404, err.message);
    ctx.log(`channel '${name}' not changed: ${(err as Error).message}`);
    return sendError(res, 500, 'the channel registry could not be written');
  }
  const warning = secrets.length === 0 ? 'the channel has no secret: it accepts unsigned deliveries' : weakSecretWarning(r.secrets);
  const what = `${r.add ? `${r.secrets.length} secret(s) added` : 'secrets replaced'}, ${secrets.length} in use`;
  ctx.log(`channel '${name}': ${what}${warning ? `; warning: ${warning}` : ''}`, { channel: name, ...(warning ? { level: 'warn' as const } : {}) });
  const info = ctx.directory.info(name, countsOf(ctx));
  sendJson(res, 200, warning ? { ...info, warning } : info);
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
