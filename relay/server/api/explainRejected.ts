// The signature doctor's words for a delivery the relay rejected, run by the relay with the
// channel's secrets (which never leave it) on the headers and body it journaled: what GET
// /api/deliveries/<seq> answers as `explanation`, so a client need not ask anyone for the secret.
import { channelGone, explainSignature } from '../../../src/core/doctor';
import type { RelayDelivery } from '../../../src/core/relay/protocol';
import { SIGNATURE_HEADER, verify } from '../../../src/core/signing';

/**
 * The doctor's findings for a rejected delivery, with the current secrets of the channel it came to
 * (undefined: that channel is gone, even when another channel has its name now), and whether its
 * signature verifies with them now (a retry at the service, which resends the same signature,
 * passes only then).
 */
export function explainRejected(d: RelayDelivery, secrets: readonly string[] | undefined): { explanation: string[]; signatureMatchesNow: boolean } {
  const no = (why: string) => ({ explanation: [why], signatureMatchesNow: false });
  if (secrets === undefined) return no(channelGone(d.channel));
  if (secrets.length === 0) return no(`the channel ${d.channel} has no secret now, so the signature cannot be checked again`);
  if (d.truncated)
    return no(`the relay kept only the first ${d.truncated.kept} of ${d.size} bytes of this rejected body, too few to check the signature again`);
  const header = d.headers[SIGNATURE_HEADER.toLowerCase()];
  const body = Buffer.from(d.bodyBase64, 'base64');
  // Any of the channel's secrets, as ingress verifies (the doctor's `ok` is about the first only).
  const signatureMatchesNow = verify(body, header, secrets).ok;
  const found = explainSignature({ body, header, secrets });
  // The secrets may have changed since the delivery came in: say which ones the words are about.
  if (found.ok) return { explanation: ["it matches the channel's current secret: the secret was changed after the delivery came in"], signatureMatchesNow };
  return { explanation: found.findings, signatureMatchesNow };
}
