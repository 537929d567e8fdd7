// The HTTP Retry-After header, read once for every client that honours it: the service client
// (src/core/client, its own lower cap) and every forwarder (src/core/relay/forwardPolicy). Pure.

/** Retry-After is honoured up to this by the forwarders (a longer one is cut to it). */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/**
 * A Retry-After header value in ms from `nowMs`: delta-seconds or an HTTP date (the first of
 * repeated headers); undefined when absent or malformed. Negative (a date in the past) is 0; more
 * than `capMs` is cut to it.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, nowMs: number, capMs = MAX_RETRY_AFTER_MS): number | undefined {
  const v = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (!v) return undefined;
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (!/[A-Za-z]/.test(v) || Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(capMs, Math.max(0, ms));
}
