// Headers and raw body of a delivery, from the service (detail endpoint) or the relay journal.
import type { Verification } from '../../core/relay/protocol';
import { UserError } from '../errors';
import { withProgress } from '../ui/progress';
import { isRelayTarget, pickDelivery, pickRelayDelivery } from './pickers';
import type { CommandContext } from './context';

export interface RawDelivery {
  source: 'service' | 'relay';
  /** where it was (or would be) sent */
  url: string;
  headers: Record<string, string>;
  /** The body bytes as received: the relay keeps them exactly (they need not be UTF-8). */
  body: Buffer;
  /** From the relay: its verdict on arrival, its reason and its doctor's findings for a rejected one. */
  relay?: { seq: number; channel: string; verification: Verification; reason?: string; explanation?: string[] };
}

export async function rawDelivery(ctx: CommandContext, arg: unknown, title: string): Promise<RawDelivery> {
  const relay = ctx.services.relay;
  if (isRelayTarget(arg)) {
    const summary = await pickRelayDelivery(ctx, arg, title);
    const d = await withProgress(`Reading #${summary.seq} from the relay…`, () => relay.getDelivery(summary.seq), { cancellable: true, location: 'window' });
    const verdict = {
      seq: d.seq,
      channel: d.channel,
      verification: d.verification,
      ...(d.reason ? { reason: d.reason } : {}),
      ...(d.explanation ? { explanation: d.explanation } : {}),
    };
    return { source: 'relay', url: relay.ingressUrl(d.channel), headers: d.headers, body: Buffer.from(d.bodyBase64, 'base64'), relay: verdict };
  }
  const { webhook, deliveryId, journaled } = await pickDelivery(ctx, arg, { title });
  if (journaled?.seq !== undefined) return rawDelivery(ctx, { seq: journaled.seq }, title);
  const client = await ctx.services.client();
  const detail = await client.getDelivery(webhook.id, deliveryId);
  if (!detail) throw new UserError('The service does not offer delivery details; use the relay journal instead.');
  return { source: 'service', url: webhook.url, headers: detail.request.headers, body: Buffer.from(detail.request.body, 'utf8') };
}

export function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}
