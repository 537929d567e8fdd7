// Retry policy of the service client: which requests may be sent again, and how long to wait.
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
export const MAX_REQUEST_BACKOFF_MS = 8_000;

/** Exponential backoff before retry number `retry` (1-based): base, 2·base, 4·base … at most MAX_REQUEST_BACKOFF_MS. */
export function backoff(retry: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** (retry - 1), MAX_REQUEST_BACKOFF_MS);
}
