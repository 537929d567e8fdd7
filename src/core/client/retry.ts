// Retry policy of the service client: which requests may be sent again, and how long to wait.
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const MAX_BACKOFF_MS = 8_000;

/**
 * `Retry-After` in milliseconds: delay-seconds or an HTTP date, clamped to [0, cap].
 * Undefined when absent or unparseable (the caller falls back to backoff).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number, capMs: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at) || !/[a-z]/i.test(v)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(0, ms), capMs);
}

/** Exponential backoff before retry number `retry` (1-based): base, 2·base, 4·base … at most MAX_BACKOFF_MS. */
export function backoff(retry: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** (retry - 1), MAX_BACKOFF_MS);
}
