// GET /api/deliveries with the page's filters (event, verification, forward outcome, part of a
// delivery id: src/core/relay/deliveryFilter.ts) over every delivery the rest of the query keeps,
// not only the newest page: the index is read back in chunks, newest first, until `limit` match.
import { matchesFilter, type DeliveryFilter } from '../../../src/core/relay/deliveryFilter';
import type { RelayDeliverySummary } from '../../../src/core/relay/protocol';
import type { StoreListQuery } from '../base/storeTypes';

/** Rows read from the index at a time. */
const CHUNK = 1000;

export function filteredList(list: (q: StoreListQuery) => RelayDeliverySummary[], q: StoreListQuery, filter: DeliveryFilter): RelayDeliverySummary[] {
  const limit = Math.max(1, Math.min(q.limit ?? 100, 10_000));
  // The index filters one status itself (a column, and a count that may say none match at once).
  const status = q.status ?? filter.verification;
  const out: RelayDeliverySummary[] = [];
  let before = q.before;
  for (;;) {
    const chunk = list({ ...q, status, before, limit: CHUNK });
    for (const s of chunk) if (matchesFilter(s, filter) && out.push(s) >= limit) return out;
    if (chunk.length < CHUNK) return out;
    before = chunk.at(-1)!.seq;
  }
}
