// The signature doctor's words for a delivery the relay rejected, run by the relay with the
// channel's secrets (which never leave it) on the headers and body it journaled: what GET
// /api/deliveries/<seq> answers as `explanation`, so a client need not ask anyone for the secret.
import { channelGone, explainSignature } from '../../../src/core/doctor';
import type { RelayDelivery } from '../../../src/core/relay/protocol';
import { SIGNATURE_HEADER } from '../../../src/core/signing';

/**
 * The doctor's findings for a rejected delivery, with the current secrets of the channel it came to
 * (undefined: that channel is gone, even when another channel has its name now).
 */
export function explainRejected(d: RelayDelivery, secrets: readonly string[] | undefined): string[] {
  if (secrets === undefined) return [channelGone(d.channel)];
  if (secrets.length === 0) return [`the channel ${d.channel} has no secret now, so the signature cannot be checked again`];
  if (d.truncated) {
    return [`the relay kept only the first ${d.truncated.kept} of ${d.size} bytes of this rejected body, too few to check the signature again`];
  }
  const header = d.headers[SIGNATURE_HEADER.toLowerCase()];
  const found = explainSignature({ body: Buffer.from(d.bodyBase64, 'base64'), header, secrets });
  // The secrets may have changed since the delivery came in: say which ones the words are about.
  return found.ok ? ["it matches the channel's current secret: the secret was changed after the delivery came in"] : found.findings;
}
