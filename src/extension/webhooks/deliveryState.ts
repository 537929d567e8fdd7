// A webhook's deliveries as the Webhooks view holds them: from the service's deliveries endpoint,
// or, when the service offers none, what reached the relay for that webhook (held whole, paged here).
import { PagedList, channelNote, webhookRelayDeliveries, type DeliveryCounts, type DeliverySource, type DeliveryView, type WebhookView } from '../../core/tree';
import { RelayApiError } from '../../../relay/client/apiError';
import { UserError } from '../errors';
import { COMMANDS } from '../ids';
import type { Services } from '../services';

export interface DeliveryState {
  source: DeliverySource;
  counts: DeliveryCounts;
  list: PagedList<DeliveryView>;
  /** relay-sourced lists are held whole in memory and paged locally */
  all?: DeliveryView[];
  note?: string;
  /** What clicking the note row does (Forward…, Connect to Relay…). */
  noteAction?: { command: string; title: string; arguments?: unknown[] };
  /** The relay channel the rows come from, and the count row's description naming it. */
  channel?: string;
  detail?: string;
}

/** A delivery list that drops a row already loaded (tree ids must be unique): relay rows by seq, service rows by id. */
function newList(total: number): PagedList<DeliveryView> {
  return new PagedList<DeliveryView>(total, (d) => (d.seq !== undefined ? `#${d.seq}` : d.id));
}

/** The journal entries one webhook's rows are built from, at most this many (newest). */
const RELAY_ROWS = 1000;

/**
 * The first page of a webhook's deliveries: the service's listing when it offers one, else what
 * reached the relay the webhook points at (`sharesChannel`: other listed webhooks point at the
 * same channel, so only this webhook's events are its own). `shown`: rows from the relay are shown
 * already, so while the relay reconnects this throws RelayReconnecting (the view keeps them, marked
 * stale, as in a service outage) instead of answering with no rows.
 */
export async function loadFirstPage(
  services: Services,
  webhook: WebhookView,
  pageSize: number,
  sharesChannel: (channel: string) => Promise<boolean> = async () => false,
  shown = false,
): Promise<DeliveryState> {
  const client = await services.client();
  const page = await client.listDeliveries(webhook.id, { limit: pageSize, offset: 0 });
  if (page.offered) {
    const list = newList(page.total);
    list.append(page.deliveries, page.total);
    return { source: 'service', counts: { total: page.total, successful: page.successful, failed: page.failed }, list };
  }
  // The service lists deliveries in its web UI only: show what reached the relay for this webhook.
  const relay = services.relay;
  const channel = relay.channelOf(webhook.url);
  if (channel === undefined) return noRelay(relay.remoteLabel);
  if (!relay.connected && shown && relay.state === 'connecting')
    throw new RelayReconnecting(relay.remoteLabel ?? `the relay on port ${relay.port ?? '?'}`, relay.detail);
  if (!relay.connected) {
    return empty({
      note: 'The service shows deliveries in its web UI only; connect to the relay this webhook points at to see the ones it receives.',
      noteAction: { command: relay.remoteLabel ? COMMANDS.connectRelay : COMMANDS.startRelay, title: relay.remoteLabel ? 'Connect to Relay…' : 'Start Relay' },
    });
  }
  let entries;
  try {
    ({ deliveries: entries } = await relay.listDeliveries({ channel, limit: RELAY_ROWS }));
  } catch (err) {
    if (!(err instanceof RelayApiError && err.status === 403)) throw err;
    return empty({
      channel,
      note: `The relay token in use is limited to another channel: it cannot read channel '${channel}'. Connect with the admin token or this channel's token.`,
    });
  }
  const shared = await sharesChannel(channel);
  const view = webhookRelayDeliveries(entries, webhook, shared);
  const list = newList(view.deliveries.length);
  list.append(view.deliveries.slice(0, pageSize), view.deliveries.length);
  return { source: 'relay', counts: view.counts, list, all: view.deliveries, channel, detail: channelNote(channel, view, shared) };
}

/** The relay in use is reconnecting: the rows read from it before are kept, marked stale. */
export class RelayReconnecting extends UserError {
  constructor(label: string, detail?: string) {
    super(`Reconnecting to ${label}${detail ? ` (${detail.replace(/^Reconnecting to [^:]*: /, '')})` : ''}.`);
  }
}

/** No rows this editor can read (no relay for the webhook, not connected, another channel's token): the count is unknown, not 0. */
function empty(extra: Partial<DeliveryState>): DeliveryState {
  return { source: 'relay', counts: { total: 0, successful: 0, failed: 0, unknown: true }, list: newList(0), ...extra };
}

/** A webhook that points at no relay the editor knows: its deliveries are in the service's web UI (their count unknown here); Forward… routes it through one. */
function noRelay(remote: string | undefined): DeliveryState {
  return empty({
    note: `The service shows this webhook's deliveries in its web UI only, and it does not point at ${remote ? `a channel of ${remote}` : 'the relay'}. Forward… routes it through a relay, so its deliveries show here.`,
    noteAction: { command: COMMANDS.forwardToLocalApp, title: 'Forward Webhooks to Local App…' },
  });
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
  const first = st.list.items.slice(0, count).map((d) => [d.id, d.seq, d.success, d.status, d.delivered_at, d.attempts?.length, d.error, d.test]);
  return JSON.stringify([st.source, st.counts, st.note ?? null, st.detail ?? null, st.list.total, first]);
}
