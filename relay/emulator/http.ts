// Small HTTP helpers of the emulator: JSON answers, the error body { error, field? }, bearer
// check in constant time, and a capped JSON body reader (413 / 415 / 400).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, error: string, field?: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, field === undefined ? { error } : { error, field }, headers);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status).end();
}

/** True when the request carries `Authorization: Bearer <token>` (compared in constant time). */
export function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const a = createHash('sha256').update(m[1]!).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: number; error: string };

/** Reads up to `max` bytes; stops reading (and closes the connection) past the cap. */
export function readRaw(req: IncomingMessage, max: number): Promise<Buffer | 'too-large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let n = 0;
    let done = false;
    const finish = (v: Buffer | 'too-large' | 'aborted') => {
      if (done) return;
      done = true;
      resolve(v);
    };
    req.on('data', (c: Buffer) => {
      if (done) return;
      n += c.length;
      if (n > max) {
        chunks.length = 0;
        req.pause();
        finish('too-large');
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => finish(Buffer.concat(chunks, n)));
    req.on('error', () => finish('aborted'));
    req.on('close', () => finish('aborted'));
  });
}

/** The media type is application/json (or +json); parameters such as charset are allowed. */
export function isJsonType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** Reads and parses a JSON request body: 415 for another content type, 413 over `max`, 400 bad JSON. */
export async function readJson(req: IncomingMessage, max: number): Promise<BodyResult | 'aborted'> {
  if (!isJsonType(req.headers['content-type'])) {
    req.resume();
    const got = req.headers['content-type'] ? `'${req.headers['content-type']}'` : 'none';
    return { ok: false, status: 415, error: `Content-Type must be application/json (got ${got})` };
  }
  const raw = await readRaw(req, max);
  if (raw === 'aborted') return 'aborted';
  if (raw === 'too-large') return { ok: false, status: 413, error: `the body exceeds the ${max}-byte limit` };
  if (raw.length === 0) return { ok: false, status: 400, error: 'the body is empty; a JSON body is required' };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch (err) {
    return { ok: false, status: 400, error: `malformed JSON: ${(err as Error).message}` };
  }
}
