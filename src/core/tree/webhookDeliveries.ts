// A webhook's own deliveries out of a relay channel's journal. With a channel of its own, every
// delivery on it is the webhook's; on a channel several webhooks share, only the events the webhook
// subscribes to (and `ping`, which the service sends to any webhook) are its own, and the view says
// that it filtered. Test sends (testSend.ts) are shown marked and never counted as the service's.
// Entries with the same delivery id (the service's retries of one delivery: each reached the relay
// and was journaled) are one row, as the service shows one delivery with several attempts: created
// at the first, with the outcome and seq of the last. Add Webhook's signed check of a secret
// (testSend.ts isSecretCheckId) is no webhook's delivery: left out.
import { isSecretCheckId, isTestDeliveryId } from '../testSend';
import { byCreatedDesc } from './labels';
import { relayToDelivery } from './relayModel';
import { relayChannelFor, type RelayUrls } from '../relay/ingressChannel';
import type { DeliveryCounts, DeliveryView, RelayDeliveryView, WebhookView } from './types';

export interface WebhookRelayView {
  /** newest first */
  deliveries: DeliveryView[];
  /** counts of the service's deliveries (test sends left out) */
  counts: DeliveryCounts;
  /** test sends among `deliveries` */
  tests: number;
  /** deliveries on the channel left out because the webhook does not subscribe to their event */
  otherEvents: number;
}

/** Events of the service that reach every webhook whatever it subscribes to. */
const ALWAYS = new Set(['ping']);

/**
 * The rows of `webhook` from its channel's journal entries (any order). `shared`: the channel
 * carries other webhooks' deliveries too, so only this webhook's events are kept.
 */
export function webhookRelayDeliveries(entries: readonly RelayDeliveryView[], webhook: Pick<WebhookView, 'events'>, shared: boolean): WebhookRelayView {
  const events = new Set(webhook.events);
  const groups = new Map<string, RelayDeliveryView[]>(); // newest first within each
  let otherEvents = 0;
  for (const e of [...entries].sort((a, b) => b.seq - a.seq)) {
    if (isSecretCheckId(e.deliveryId)) continue; // Add Webhook's check of a secret: no webhook's delivery
    if (shared && !(e.event !== undefined && (events.has(e.event) || ALWAYS.has(e.event)))) {
      otherEvents++;
      continue;
    }
    const key = e.deliveryId !== undefined ? `id:${e.deliveryId}` : `seq:${e.seq}`;
    const g = groups.get(key);
    if (g) g.push(e);
    else groups.set(key, [e]);
  }
  const deliveries: DeliveryView[] = [];
  for (const g of groups.values()) {
    const last = relayToDelivery(g[0]!);
    const d: DeliveryView =
      g.length === 1 ? last : { ...last, created_at: g[g.length - 1]!.receivedAt, attempts: [...g].reverse().map((e) => ({ at: e.receivedAt, seq: e.seq })) };
    deliveries.push(isTestDeliveryId(g[0]!.deliveryId) ? { ...d, test: true } : d);
  }
  deliveries.splice(0, deliveries.length, ...byCreatedDesc(deliveries));
  const counted = deliveries.filter((d) => !d.test);
  const successful = counted.filter((d) => d.success).length;
  const retrying = counted.filter((d) => d.retrying).length;
  return {
    deliveries,
    counts: { total: counted.length, successful, failed: counted.length - successful - retrying, ...(retrying ? { retrying } : {}) },
    tests: deliveries.length - counted.length,
    otherEvents,
  };
}

/** The webhooks (ids) whose URL is each channel's ingress on the relay described by `relay`. */
export function webhooksByChannel(hooks: readonly Pick<WebhookView, 'id' | 'url'>[], relay: RelayUrls): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const h of hooks) {
    const ch = relayChannelFor(h.url, relay);
    if (ch === undefined) continue;
    out.set(ch, [...(out.get(ch) ?? []), h.id]);
  }
  return out;
}

/** The count row's description: which channel, and what was filtered. */
export function channelNote(channel: string, view: Pick<WebhookRelayView, 'tests' | 'otherEvents'>, shared: boolean): string {
  const parts = [`channel ${channel}`];
  if (shared) parts.push("shared: this webhook's events only");
  if (view.tests > 0) parts.push(`${view.tests} test send${view.tests === 1 ? '' : 's'} not counted`);
  return parts.join(' · ');
}
