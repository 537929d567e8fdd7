// POST /api/forward/retry {channel?, target?}: the request body checked into the forwarder's filter.
import type { RetryFilter } from '../forwarding/forwarder';

/** The filter, or the reason the body is refused (400). */
export function parseRetryRequest(raw: unknown): RetryFilter | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { error: 'body must be a JSON object' };
  const body = raw as Record<string, unknown>;
  const filter: RetryFilter = {};
  for (const k of ['channel', 'target'] as const) {
    const v = body[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') return { error: `${k} must be a non-empty string` };
    filter[k] = v;
  }
  const unknown = Object.keys(body).filter((k) => k !== 'channel' && k !== 'target');
  if (unknown.length > 0) return { error: `unknown field '${unknown[0]}' (expected channel, target)` };
  return filter;
}
