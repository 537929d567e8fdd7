// The relay in use's ingress URLs as the editor offers and matches them: one channel's, Add
// Webhook's payload URL choices, and the set the Webhooks view matches webhook URLs against. With
// no relay in use: the local relay's on the configured port.
import { relayUrlsOf, webhookUrlChoices, type RelayUrls, type WebhookUrlChoice } from '../../core/tree';
import { settings } from '../config';
import type { RelayInUse } from './inUse';

/** Ingress URL of a channel on the relay in use (or the local relay's, configured port). */
export function ingressUrlOf(relay: RelayInUse, channel = 'default'): string {
  // The relay's own URL for it first: behind --public-url it differs from the address connected to.
  const known = relay.status?.channels.find((c) => c.name === channel)?.ingressUrl;
  if (relay.remote) return known ?? `${relay.remote.httpUrl}/hooks/${encodeURIComponent(channel)}`;
  return `http://127.0.0.1:${relay.localPort ?? settings().relayPort}/hooks/${channel}`;
}

/**
 * Payload URLs for Add Webhook: a channel of the webhook's own (`newChannel`) first, then the
 * connected relay's channels with the URLs it reports; the local relay's only with no remote relay.
 */
export function payloadUrlChoices(relay: RelayInUse, newChannel?: string): WebhookUrlChoice[] {
  const remote = relay.remote && {
    label: relay.remote.label,
    channels: (relay.status?.channels ?? []).map((c) => ({ name: c.name, ingressUrl: ingressUrlOf(relay, c.name) })),
    ingressBase: relay.status?.ingressBase ?? relay.remote.httpUrl,
  };
  const localUrl = `http://127.0.0.1:${relay.localPort ?? settings().relayPort}/hooks/default`;
  return webhookUrlChoices({ remote, localUrl, serviceBaseUrl: settings().baseUrl, newChannel });
}

/**
 * The URLs the relay in use answers ingress at, as it reports them (GET /api/status: its ingress
 * base, each channel's URL) plus the address connected to; with no relay in use, the local relay's
 * address on the configured port. The Webhooks view matches webhook URLs against these.
 */
export function ingressUrlsOf(relay: RelayInUse): RelayUrls {
  const address = relay.remote?.httpUrl ?? `http://127.0.0.1:${relay.localPort ?? settings().relayPort}`;
  return relayUrlsOf(relay.conn ? relay.status : undefined, address);
}
