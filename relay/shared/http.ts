// The small HTTP vocabulary the relay and the emulator share: JSON answers, the error body
// { error, field? }, raw refusals on a socket the HTTP layer gave up on, the bearer check in
// constant time, capped body readers that return result values instead of throwing, and listen().
import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { BodyBytes } from './bodyBytes';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Answers `{ error, field? }`. */
export function sendError(res: ServerResponse, status: number, error: string, field?: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, field === undefined ? { error } : { error, field }, headers);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status).end();
}

/** Answers 413 and closes the connection once the answer is out (the rest of the body is not read). */
export function sendTooLarge(req: IncomingMessage, res: ServerResponse, error: string): void {
  sendError(res, 413, error, undefined, { connection: 'close' });
  res.on('finish', () => req.socket.destroy());
}

/**
 * An empty answer written straight to a socket the HTTP layer gave up on (upgrade refusals, parser
 * errors), then the connection is closed: ended, or with `destroy` destroyed once the answer is out;
 * `retryAfter` (seconds) says when to try again.
 */
export function refuseRaw(socket: Duplex, status: number, options: { destroy?: boolean; retryAfter?: number } = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const retry = options.retryAfter === undefined ? '' : `Retry-After: ${options.retryAfter}\r\n`;
  const answer = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${retry}Connection: close\r\nContent-Length: 0\r\n\r\n`;
  if (options.destroy) socket.end(answer, () => socket.destroy());
  else socket.end(answer);
}

/** The token of `Authorization: Bearer <token>`, if any. */
export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m ? m[1] : undefined;
}

/** Constant-time token comparison (hashes first so lengths do not leak). */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function authorized(req: IncomingMessage, token: string): boolean {
  return tokenMatches(bearer(req), token);
}

export type RawBody = Buffer | 'too-large' | 'aborted';

/**
 * Reads up to `max` bytes. Past the cap (declared or streamed) it stops reading and answers
 * 'too-large'; a client that goes away gives 'aborted'. Never throws.
 */
export function readRaw(req: IncomingMessage, max: number): Promise<RawBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const bytes = new BodyBytes(declared);
    let done = false;
    const finish = (v: () => RawBody) => {
      if (done) return;
      done = true;
      resolve(v());
    };
    const drop = (why: 'too-large' | 'aborted') => () => (bytes.drop(), why);
    req.on('data', (c: Buffer) => {
      if (done) return;
      if (bytes.length + c.length > max) {
        req.pause();
        finish(drop('too-large'));
        return;
      }
      bytes.add(c);
    });
    req.on('end', () => finish(() => bytes.done()));
    req.on('error', () => finish(drop('aborted')));
    req.on('close', () => finish(drop('aborted')));
  });
}

/** The media type is application/json (or +json); parameters such as charset are allowed. */
export function isJsonType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; error: string };

export interface ReadJsonOptions {
  /** Refuse (415) a Content-Type that is not JSON. Default true. */
  requireJsonType?: boolean;
  /** The value of an empty body; without it an empty body is a 400. */
  empty?: () => unknown;
}

/** Reads and parses a JSON request body: 415 for another content type, 413 over `max`, 400 bad JSON. */
export async function readJson(req: IncomingMessage, max: number, options: ReadJsonOptions = {}): Promise<BodyResult | 'aborted'> {
  if ((options.requireJsonType ?? true) && !isJsonType(req.headers['content-type'])) {
    req.resume();
    const got = req.headers['content-type'] ? `'${req.headers['content-type']}'` : 'none';
    return { ok: false, status: 415, error: `Content-Type must be application/json (got ${got})` };
  }
  const raw = await readRaw(req, max);
  if (raw === 'aborted') return 'aborted';
  if (raw === 'too-large') return { ok: false, status: 413, error: `the body exceeds the ${max}-byte limit` };
  const text = raw.toString('utf8');
  if (text.trim() === '') {
    return options.empty ? { ok: true, value: options.empty() } : { ok: false, status: 400, error: 'the body is empty; a JSON body is required' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, status: 400, error: `malformed JSON: ${(err as Error).message}` };
  }
}

/**
 * readJson, answering a refusal itself (413 through sendTooLarge, which closes the connection; 415
 * and 400 with the reason): `{ value }`, or undefined once answered or the request aborted.
 */
export async function readJsonOrRefuse(
  req: IncomingMessage,
  res: ServerResponse,
  max: number,
  options: ReadJsonOptions = {},
): Promise<{ value: unknown } | undefined> {
  const r = await readJson(req, max, options);
  if (r === 'aborted') return undefined;
  if (r.ok) return { value: r.value };
  if (r.status === 413) sendTooLarge(req, res, r.error);
  else sendError(res, r.status, r.error);
  return undefined;
}

/** A plain JSON object (not null, an array, a string, a number or a boolean). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Listens on host:port and resolves with the bound port (a listen error such as EADDRINUSE rejects, with its `code`). */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as { port: number }).port;
}
