// A webhook's deliveries as the Webhooks view holds them: from the service's deliveries endpoint,
// or, when the service offers none, what reached the relay for that webhook (held whole, paged here).
import {
  PagedList,
  countDeliveries,
  relayChannelOfUrl,
  relayToDelivery,
  type DeliveryCounts,
  type DeliverySource,
  type DeliveryView,
  type WebhookView,
} from '../core/tree';
import { settings } from './config';
import type { Services } from './services';

export interface DeliveryState {
  source: DeliverySource;
  counts: DeliveryCounts;
  list: PagedList<DeliveryView>;
  /** relay-sourced lists are held whole in memory and paged locally */
  all?: DeliveryView[];
  note?: string;
}

/** A delivery list that drops a row already loaded (tree ids must be unique): relay rows by seq, service rows by id. */
function newList(total: number): PagedList<DeliveryView> {
  return new PagedList<DeliveryView>(total, (d) => (d.seq !== undefined ? `#${d.seq}` : d.id));
}

export async function loadFirstPage(services: Services, webhook: WebhookView, pageSize: number): Promise<DeliveryState> {
  const client = await services.client();
  const page = await client.listDeliveries(webhook.id, { limit: pageSize, offset: 0 });
  if (page.offered) {
    const list = newList(page.total);
    list.append(page.deliveries, page.total);
    return { source: 'service', counts: { total: page.total, successful: page.successful, failed: page.failed }, list };
  }
  // The service offers no deliveries endpoint: show what reached the relay for this webhook.
  const relay = services.relay;
  const channel = relayChannelOfUrl(webhook.url, relay.port ?? settings().relayPort);
  if (!channel || !relay.connected) {
    const note = !channel
      ? 'The service does not list deliveries, and this webhook does not point at the relay.'
      : 'The service does not list deliveries; start the relay to see the ones it receives.';
    return { source: 'relay', counts: { total: 0, successful: 0, failed: 0 }, list: newList(0), note };
  }
  const { deliveries } = await relay.listDeliveries({ channel, limit: 1000 });
  const all = deliveries.sort((a, b) => b.seq - a.seq).map(relayToDelivery);
  const list = newList(all.length);
  list.append(all.slice(0, pageSize), all.length);
  return { source: 'relay', counts: countDeliveries(all), list, all };
}

/** Appends the page at `st.list.nextOffset`. */
export async function loadDeliveryPage(services: Services, webhook: WebhookView, st: DeliveryState, pageSize: number): Promise<void> {
  if (st.all) {
    st.list.append(st.all.slice(st.list.nextOffset, st.list.nextOffset + pageSize), st.all.length);
    return;
  }
  const client = await services.client();
  const page = await client.listDeliveries(webhook.id, { limit: pageSize, offset: st.list.nextOffset });
  if (page.offered) {
    st.list.append(page.deliveries, page.total);
    st.counts = { total: page.total, successful: page.successful, failed: page.failed };
  }
}

/** What the rows of a delivery state show, over its first `count` deliveries: equal fingerprints need no repaint. */
export function deliveriesFingerprint(st: DeliveryState, count = st.list.items.length): string {
  const first = st.list.items.slice(0, count).map((d) => [d.id, d.seq, d.success, d.status, d.delivered_at, d.attempts?.length, d.error]);
  return JSON.stringify([st.source, st.counts, st.note ?? null, st.list.total, first]);
}
