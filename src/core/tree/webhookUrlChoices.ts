// The payload URLs Add Webhook offers for the relay in use, best first.
import { ingressUrl } from '../relay/ingressChannel';
import { serviceIsLocal } from './relayAddress';

export interface WebhookUrlChoice {
  url: string;
  description: string;
  /** Set when picking it means creating this channel first (a channel of the webhook's own on the remote relay). */
  newChannel?: string;
}

/**
 * The payload URLs Add Webhook offers, best first. With a remote relay in use: a new channel of
 * the webhook's own (`newChannel`, under the relay's reported ingress base: its rows and counts are
 * then that webhook's), then its channels with the URLs the relay reports; never the local relay's
 * http://127.0.0.1 address, which the remote relay is not. Without one: a channel of its own on the
 * local relay, then its `default` channel.
 */
export function webhookUrlChoices(o: {
  remote?: { label: string; channels: { name: string; ingressUrl: string }[]; ingressBase?: string };
  localUrl: string;
  serviceBaseUrl: string;
  newChannel?: string;
}): WebhookUrlChoice[] {
  const out: WebhookUrlChoice[] = [];
  if (o.remote) {
    if (o.newChannel && o.remote.ingressBase) {
      out.push({
        url: ingressUrl(o.remote.ingressBase, o.newChannel),
        description: `a new channel of its own on ${o.remote.label} (recommended)`,
        newChannel: o.newChannel,
      });
    }
    for (const c of o.remote.channels) out.push({ url: c.ingressUrl, description: `channel ${c.name} on ${o.remote.label}` });
    return out;
  }
  const reach = serviceIsLocal(o.serviceBaseUrl) ? '' : ' (the service must reach this machine)';
  if (o.newChannel)
    out.push({
      url: ingressUrl(o.localUrl.replace(/\/hooks(\/[^/]*)?$/, ''), o.newChannel),
      description: `a channel of its own on the local relay (recommended)${reach}`,
    });
  out.push({ url: o.localUrl, description: o.newChannel ? `local relay, channel default (shared)${reach}` : `local relay${reach}` });
  return out;
}
