// The client's transport: one JSON exchange over undici with a per-attempt deadline,
// retries (idempotent methods only) and typed, redacted errors.
import { request } from 'undici';
import { ServiceError, excerpt, networkErrorCode, redact } from './errors';
import { parseRetryAfter } from '../net/retryAfter';
import { IDEMPOTENT_METHODS, RETRYABLE_STATUSES, backoff } from './retry';
import type { ServiceClientOptions } from './types';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RawResponse {
  status: number;
  /** The body as text ('' when empty). */
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Values of this request to redact from errors, besides the token (e.g. a secret being created). */
  sensitive?: (string | undefined)[];
  /** Statuses returned to the caller instead of raising (e.g. 404/405 of an optional endpoint). */
  accept?: readonly number[];
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What one attempt ended with: a response, or a failure that may be retried. */
type Attempt = { ok: true; res: RawResponse; retryAfter?: string | string[] } | { ok: false; error: ServiceError };

export class Transport {
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly maxBytes: number;

  constructor(
    private readonly base: string,
    private readonly options: ServiceClientOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retries = Math.max(0, Math.floor(options.retries ?? 3));
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? Date.now;
    this.maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  }

  /** Sends `method path`, retrying where allowed; resolves with a 2xx (or accepted) response, else throws ServiceError. */
  async call(method: Method, path: string, opts: CallOptions = {}): Promise<RawResponse> {
    const sensitive = [this.options.token, ...(opts.sensitive ?? [])];
    const idempotent = IDEMPOTENT_METHODS.has(method);
    for (let attempt = 0; ; attempt++) {
      const result = await this.attempt(method, path, opts.body, sensitive);
      const canRetry = idempotent && attempt < this.retries;
      if (result.ok) {
        const { status } = result.res;
        if ((status >= 200 && status < 300) || opts.accept?.includes(status)) return result.res;
        if (canRetry && RETRYABLE_STATUSES.has(status)) {
          const after = parseRetryAfter(result.retryAfter, this.now(), this.options.maxRetryAfterMs ?? 30_000);
          await this.sleep(after ?? backoff(attempt + 1, this.options.backoffMs ?? 500));
          continue;
        }
        throw httpError(method, path, result.res, sensitive);
      }
      if (canRetry && result.error.kind === 'network') {
        await this.sleep(backoff(attempt + 1, this.options.backoffMs ?? 500));
        continue;
      }
      throw result.error;
    }
  }

  private async attempt(method: Method, path: string, body: unknown, sensitive: (string | undefined)[]): Promise<Attempt> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'service-hooks-client' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const res = await request(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: this.options.dispatcher,
        signal: deadline.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > this.maxBytes) {
          res.body.destroy();
          return {
            ok: false,
            error: new ServiceError({
              kind: 'invalid-response',
              method,
              path,
              status: res.statusCode,
              detail: `response body larger than ${this.maxBytes} bytes`,
            }),
          };
        }
        chunks.push(chunk as Buffer);
      }
      return { ok: true, res: { status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }, retryAfter: res.headers['retry-after'] };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      const timedOut = deadline.signal.aborted || /^UND_ERR_(HEADERS|BODY|CONNECT)_TIMEOUT$/.test(e.code ?? '');
      if (timedOut) {
        return { ok: false, error: new ServiceError({ kind: 'timeout', method, path, detail: `no complete answer within ${this.timeoutMs} ms` }) };
      }
      const reason = redact([e.code, e.message].filter(Boolean).join(' ') || String(err), sensitive);
      const code = networkErrorCode(err);
      return {
        ok: false,
        error: new ServiceError({ kind: 'network', method, path, ...(code ? { code } : {}), detail: `cannot reach the service (${reason})` }),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}

function httpError(method: string, path: string, res: RawResponse, sensitive: (string | undefined)[]): ServiceError {
  const bodyExcerpt = excerpt(res.text, sensitive);
  let said = bodyExcerpt;
  try {
    const j = JSON.parse(res.text) as { error?: unknown; message?: unknown; field?: unknown };
    const msg = typeof j.error === 'string' ? j.error : typeof j.message === 'string' ? j.message : undefined;
    if (msg !== undefined) said = excerpt(typeof j.field === 'string' && !msg.startsWith(j.field) ? `${msg} (field ${j.field})` : msg, sensitive);
  } catch {
    // not JSON: the excerpt says what there is
  }
  const text = STATUS_TEXT[res.status] ?? 'HTTP error';
  return new ServiceError({ kind: 'http', method, path, status: res.status, bodyExcerpt, detail: `${res.status} ${text}${said ? `: ${said}` : ''}` });
}
