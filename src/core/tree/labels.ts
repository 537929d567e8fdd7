// Labels, descriptions and tooltips of the tree rows. Pure strings: no vscode, no I/O.
import type { DeliveryCounts, DeliverySource, DeliveryView, WebhookView } from './types';

/** "Deliveries 12 · ✓ 10 · ✗ 2" */
export function deliveriesLabel(c: DeliveryCounts): string {
  if (c.unknown) return "Deliveries: in the service's web UI";
  return `Deliveries ${c.total} · ✓ ${c.successful} · ✗ ${c.failed}${c.retrying ? ` · ↻ ${c.retrying}` : ''}`;
}

/** A webhook's label from its URL: host[:port] + path, without scheme, query or credentials. */
export function webhookLabel(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname === '/' ? '' : u.pathname;
    return `${u.host}${path}`;
  } catch {
    return url;
  }
}

export function eventsDescription(events: readonly string[]): string {
  return events.length === 0 ? 'no events' : events.join(', ');
}

/** Never includes the secret: only whether one is set. The URL is shown without credentials or query. */
export function webhookTooltip(w: WebhookView): string {
  return [
    `Webhook ${w.id}`,
    `URL: ${safeUrl(w.url)}`,
    `Content type: ${w.content_type === 'json' ? 'json (application/json)' : w.content_type}`,
    `Secret: ${w.secret_set ? 'set' : 'not set'}`,
    `Events: ${eventsDescription(w.events)}`,
    ...(w.created_at ? [`Created: ${toSecond(w.created_at)}`] : []),
  ].join('\n');
}

/** The URL with user info and query string removed (either may carry credentials). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    const hadQuery = u.search !== '';
    u.search = '';
    u.hash = '';
    return u.toString() + (hadQuery ? '?…' : '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '?…');
  }
}

/** "2026-11-22 20:58:10" (UTC, to the second). Unparseable input is shown as given. */
export function toSecond(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toISOString().slice(0, 19).replace('T', ' ');
}

export function deliveryOutcome(d: Pick<DeliveryView, 'success' | 'status' | 'error' | 'retrying'>): string {
  if (d.success) return '✓';
  if (d.retrying) return d.status !== null && d.status !== undefined ? `↻ ${d.status} retrying` : '↻ retrying';
  if (d.status !== null && d.status !== undefined) return `✗ ${d.status}`;
  return `✗ ${d.error ? 'no response' : 'failed'}`;
}

/**
 * When a delivery was created: `created_at`, else its first attempt's time, else `delivered_at`
 * (which the service sets to the last attempt's time).
 */
export function createdAt(d: Pick<DeliveryView, 'created_at' | 'attempts' | 'delivered_at'>): string {
  if (d.created_at) return d.created_at;
  const first = d.attempts?.[0] as { at?: unknown } | undefined;
  return typeof first?.at === 'string' ? first.at : d.delivered_at;
}

/** Newest created first; equal times keep their order (the service lists in creation order). */
export function byCreatedDesc<T extends Pick<DeliveryView, 'created_at' | 'attempts' | 'delivered_at'>>(list: readonly T[]): T[] {
  const t = (d: T) => {
    const ms = Date.parse(createdAt(d));
    return Number.isNaN(ms) ? -Infinity : ms;
  };
  return list
    .map((d, i) => ({ d, i, t: t(d) }))
    .sort((a, b) => b.t - a.t || a.i - b.i)
    .map((x) => x.d);
}

/** The last attempt's time when it differs from the creation time (after retries). */
function lastAttempt(d: DeliveryView): string | undefined {
  return toSecond(d.delivered_at) !== toSecond(createdAt(d)) ? toSecond(d.delivered_at) : undefined;
}

/** Row label: "2026-11-22 20:58:10 ✗ 500", the time the delivery was created. */
export function deliveryLabel(d: DeliveryView): string {
  return `${toSecond(createdAt(d))} ${deliveryOutcome(d)}`;
}

export function deliveryDescription(d: DeliveryView): string {
  const last = lastAttempt(d);
  return [d.event, ...(d.redelivery ? ['redelivery'] : []), ...(d.test ? ['test send'] : []), ...(last ? [`last attempt ${last.slice(11)}`] : [])].join(' · ');
}

export const SOURCE_TEXT: Record<DeliverySource, string> = {
  service: "from the service's deliveries endpoint",
  relay: 'from the relay journal',
};

export function deliveryTooltip(d: DeliveryView, source: DeliverySource): string {
  const lines = [
    `Delivery ${d.id}`,
    `Event: ${d.event}`,
    `Created: ${toSecond(createdAt(d))} UTC`,
    `Last attempt: ${toSecond(d.delivered_at)} UTC`,
    d.success ? 'Outcome: success' : `Outcome: ${d.retrying ? 'retrying' : 'failed'}${d.status !== null ? ` (HTTP ${d.status})` : ''}`,
  ];
  if (!d.success && d.error) lines.push(`Error: ${d.error}`);
  if (d.attempts) lines.push(`Attempts: ${d.attempts.length}`);
  if (d.test) lines.push("Test send (service-hooks send or a sample): not counted as one of the service's deliveries");
  lines.push(`Source: ${SOURCE_TEXT[source]}`);
  return lines.join('\n');
}

export function deliveriesTooltip(c: DeliveryCounts, source: DeliverySource): string {
  if (c.unknown)
    return `The service lists this webhook's deliveries in its web UI only, and they reach no relay the editor reads: their count is unknown here (not 0).`;
  return `${c.total} deliveries, ${c.successful} successful, ${c.failed} failed${c.retrying ? `, ${c.retrying} retrying` : ''}\nSource: ${SOURCE_TEXT[source]}`;
}

/** "signature header missing" → "Signature header missing." (for messages shown to people). */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const first = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?…:]$/.test(first) ? first : `${first}.`;
}
