// The delivery list's filters (GET /api/deliveries?event=&verification=&forward=&deliveryId=):
// applied by the relay over a whole channel, and by the page to what its live feed brings, with
// the one meaning both share. Pure: the relay (relay/server/store/logStore.ts) and the page
// (relay/web/list.ts) import it.
import type { RelayDeliverySummary, Verification } from './protocol';

/** A delivery's forward outcome as the list shows it: none (no target), pending, failed, ok. */
export type ForwardOutcome = 'none' | 'pending' | 'failed' | 'ok';

export interface DeliveryFilter {
  /** The event, exactly. */
  event?: string;
  verification?: Verification;
  forward?: ForwardOutcome;
  /** Part of the delivery id, any case. */
  deliveryId?: string;
}

export const VERIFICATIONS: readonly Verification[] = ['verified', 'unverified', 'rejected'];
export const FORWARD_OUTCOMES: readonly ForwardOutcome[] = ['ok', 'pending', 'failed', 'none'];
/** The longest event or delivery-id filter taken. */
const MAX_TEXT = 200;

export function forwardOutcome(s: RelayDeliverySummary): ForwardOutcome {
  if (s.forward.length === 0) return 'none';
  if (s.forward.some((f) => f.status === 'pending')) return 'pending';
  return s.forward.some((f) => f.status === 'failed') ? 'failed' : 'ok';
}

/** Whether any filter is set. */
export function filtering(f: DeliveryFilter): boolean {
  return !!(f.event || f.verification || f.forward || f.deliveryId);
}

export function matchesFilter(s: RelayDeliverySummary, f: DeliveryFilter): boolean {
  if (f.event && s.event !== f.event) return false;
  if (f.verification && s.verification !== f.verification) return false;
  if (f.forward && forwardOutcome(s) !== f.forward) return false;
  if (f.deliveryId && !(s.deliveryId ?? '').toLowerCase().includes(f.deliveryId.toLowerCase())) return false;
  return true;
}

/** The filter in query parameters, or why it is refused (400). */
export function parseDeliveryFilter(p: URLSearchParams): DeliveryFilter | { error: string } {
  const f: DeliveryFilter = {};
  for (const k of ['event', 'deliveryId'] as const) {
    const v = p.get(k);
    if (!v) continue;
    if (v.length > MAX_TEXT) return { error: `${k} must have at most ${MAX_TEXT} characters` };
    f[k] = v;
  }
  const v = p.get('verification');
  if (v) {
    if (!VERIFICATIONS.includes(v as Verification)) return { error: `verification must be one of ${VERIFICATIONS.join(', ')}, got '${v.slice(0, 50)}'` };
    f.verification = v as Verification;
  }
  const o = p.get('forward');
  if (o) {
    if (!FORWARD_OUTCOMES.includes(o as ForwardOutcome)) return { error: `forward must be one of ${FORWARD_OUTCOMES.join(', ')}, got '${o.slice(0, 50)}'` };
    f.forward = o as ForwardOutcome;
  }
  return f;
}

/** The filter as query parameters (what the page sends). */
export function filterParams(f: DeliveryFilter, p: URLSearchParams): URLSearchParams {
  for (const k of ['event', 'verification', 'forward', 'deliveryId'] as const) if (f[k]) p.set(k, f[k]);
  return p;
}
