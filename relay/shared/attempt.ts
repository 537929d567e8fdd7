// THE forward attempt, for every forwarder (the relay's --forward, `service-hooks forward`, the
// editor): one POST of the original bytes with the received headers minus hop-by-hop ones
// (forwardHeaders), a total deadline (connect + headers + body) and a cap on how much of the answer
// is read, so a target that answers headers and then trickles its body cannot hold an attempt (and
// its concurrency slot) for longer than the deadline. What to do with the result is
// src/core/relay/forwardPolicy.ts.
import type { Dispatcher } from 'undici';
import { sign, SIGNATURE_HEADER } from '../../src/core/signing';
import { connectionListed, isHopByHop, type ForwardAttempt } from '../../src/core/relay/protocol';

/** Default total deadline of one attempt, like the service's delivery time-out. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;
/** Default cap on the answer's body bytes read; the rest is not read (the connection is dropped). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface PostOptions {
  /** Total deadline of the attempt, from dispatch to the answer's last byte (default 10 s). */
  timeoutMs?: number;
  /** Answer body bytes read at most; past it the status decides and the connection is dropped. */
  maxResponseBytes?: number;
  signal?: AbortSignal;
  now?: () => number;
}

/** The headers to send: the received ones minus hop-by-hop (content-length is recomputed); re-signed with `resignSecret`. */
export function forwardHeaders(pairs: [string, string][], resignSecret?: string, body?: Uint8Array): string[] {
  const out: string[] = [];
  const listed = connectionListed(pairs);
  for (const [k, v] of pairs) {
    if (isHopByHop(k) || (listed.size > 0 && listed.has(k.toLowerCase()))) continue;
    if (resignSecret !== undefined && k.toLowerCase() === SIGNATURE_HEADER.toLowerCase()) continue;
    out.push(k, v);
  }
  if (resignSecret !== undefined) out.push(SIGNATURE_HEADER, sign(resignSecret, body ?? new Uint8Array()));
  return out;
}

const targets = new Map<string, { origin: string; path: string }>();

/** A target URL split once into the origin and path a dispatcher wants (cached per target). */
function splitTarget(target: string): { origin: string; path: string } {
  let t = targets.get(target);
  if (!t) {
    const u = new URL(target);
    t = { origin: u.origin, path: u.pathname + u.search };
    if (targets.size > 1000) targets.clear();
    targets.set(target, t);
  }
  return t;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

class DeadlineError extends Error {
  override name = 'DeadlineError';
  readonly code = 'ETIMEDOUT';
}

/**
 * One POST; never throws: failures are values. Dispatches with a minimal handler (status code
 * kept, response bytes counted and discarded as they arrive) rather than request(), which builds
 * a response stream per call only for it to be dumped.
 */
export function postOnce(dispatcher: Dispatcher, target: string, headers: string[], body: Uint8Array, options: PostOptions = {}): Promise<ForwardAttempt> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { signal } = options;
  const started = (options.now ?? Date.now)();
  const t0 = performance.now();
  const at = new Date(started).toISOString();
  const failed = (err: Error): ForwardAttempt => {
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const raw = e.code ?? e.cause?.code;
    const code = typeof raw === 'string' ? raw : undefined; // a DOMException's code is a number
    return { target, at, ok: false, durationMs: round(performance.now() - t0), error: code ? `${code}: ${e.message}` : e.message };
  };
  let retryAfter: string | undefined;
  const answered = (status: number, note = ''): ForwardAttempt => {
    const ok = status >= 200 && status < 300;
    return {
      target,
      at,
      status,
      ok,
      durationMs: round(performance.now() - t0),
      ...(ok ? {} : { error: `HTTP ${status}${note}` }),
      ...(retryAfter !== undefined && !ok ? { retryAfter } : {}),
    };
  };
  let where: { origin: string; path: string };
  try {
    where = splitTarget(target);
  } catch (err) {
    return Promise.resolve(failed(err as Error));
  }
  return new Promise<ForwardAttempt>((resolve) => {
    let status = 0;
    let read = 0;
    let settled = false;
    let abort: ((err: Error) => void) | undefined;
    /** Set once the attempt is over early: the connection is cut as soon as undici hands it over. */
    let cutWith: Error | undefined;
    const cut = (err: Error) => {
      cutWith = err;
      abort?.(err);
    };
    const onAbort = () => {
      const reason = signal!.reason instanceof Error && signal!.reason.name !== 'AbortError' ? signal!.reason : new Error('stopped');
      settle(failed(reason));
      cut(reason);
    };
    const deadline = setTimeout(() => {
      const err = new DeadlineError(`no complete answer within ${timeoutMs} ms${status ? ` (HTTP ${status} headers received)` : ''}`);
      settle(failed(err));
      cut(err);
    }, timeoutMs);
    const settle = (a: ForwardAttempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      resolve(a);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onConnect(a) {
        abort = a;
        if (cutWith) a(cutWith);
      },
      onHeaders(statusCode, rawHeaders) {
        status = statusCode;
        if (statusCode >= 300) retryAfter = headerValue(rawHeaders, 'retry-after');
        return true;
      },
      onData(chunk) {
        read += chunk.length;
        if (read > maxBytes) {
          // Enough: the status decides; the rest of the answer is not read.
          settle(answered(status, ` (answer over ${maxBytes} bytes, not read)`));
          cut(new Error(`answer over ${maxBytes} bytes`));
          return false;
        }
        return true;
      },
      onComplete() {
        settle(answered(status));
      },
      onError(err) {
        settle(failed(err));
      },
    };
    dispatcher.dispatch({ origin: where.origin, path: where.path, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }, handler);
  });
}

/** One header of an answer's raw [name, value, …] list. */
function headerValue(raw: Buffer[] | string[] | null | undefined, name: string): string | undefined {
  if (!raw) return undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toString().toLowerCase() === name) return raw[i + 1]!.toString();
  return undefined;
}
