// ServiceError: the one error type of the service client, and the redaction applied to
// everything it carries (the token and any secret sent in the request never appear).
export type ServiceErrorKind = 'http' | 'network' | 'timeout' | 'invalid-response';

export const EXCERPT_MAX = 300;
const REDACTED = '[redacted]';

export interface ServiceErrorInit {
  kind: ServiceErrorKind;
  method: string;
  path: string;
  status?: number;
  bodyExcerpt?: string;
  /** a network failure's error code (ECONNREFUSED, ENOTFOUND, …) */
  code?: string;
  detail: string;
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly kind: ServiceErrorKind;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly bodyExcerpt?: string;
  readonly code?: string;

  constructor(init: ServiceErrorInit) {
    super(`${init.method} ${init.path}: ${init.detail}`);
    this.kind = init.kind;
    this.method = init.method;
    this.path = init.path;
    if (init.status !== undefined) this.status = init.status;
    if (init.bodyExcerpt !== undefined) this.bodyExcerpt = init.bodyExcerpt;
    if (init.code !== undefined) this.code = init.code;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      method: this.method,
      path: this.path,
      status: this.status,
      bodyExcerpt: this.bodyExcerpt,
      code: this.code,
    };
  }
}

/**
 * Replaces every occurrence of each sensitive value (and any `Bearer <credential>`) in `text`.
 * Values shorter than 4 characters are not searched for: they would blank out ordinary words.
 */
export function redact(text: string, sensitive: readonly (string | undefined)[]): string {
  let out = text.replace(/\b(Bearer)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`);
  // Each value as sent and as a JSON string would echo it back (quotes, backslashes, control characters escaped).
  const values = sensitive
    .filter((s): s is string => typeof s === 'string' && s.length >= 4)
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])
    .sort((a, b) => b.length - a.length);
  for (const v of values) out = out.split(v).join(REDACTED);
  return out;
}

/** A redacted, single-spaced excerpt of at most EXCERPT_MAX characters (redaction before cutting). */
export function excerpt(text: string, sensitive: readonly (string | undefined)[]): string {
  const clean = redact(text, sensitive).replace(/\s+/g, ' ').trim();
  return clean.length > EXCERPT_MAX ? clean.slice(0, EXCERPT_MAX - 1) + '…' : clean;
}

/** Error codes of a connection that could not be made or was lost (Node's net/dns, undici). */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/**
 * The network error code of `err` or of its causes (fetch wraps the socket error in `cause`),
 * undefined when the error is not a network failure. Decided by `code`, never by message text.
 */
export function networkErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return code;
  }
  return undefined;
}

const CODE_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** A few words for a network error code ("connection refused"); the code itself when unknown. */
export function networkErrorText(code: string | undefined): string {
  return code === undefined ? 'no connection' : (CODE_TEXT[code] ?? code);
}
