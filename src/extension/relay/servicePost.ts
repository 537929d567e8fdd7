// POSTs the editor makes as the service would, to a URL the service delivers to: Send Sample
// Event…, and Add Webhook's signed check of a typed secret against the relay channel it names.
// They go with the trust of the connection to the relay (extraCa(): NODE_EXTRA_CA_CERTS passed
// explicitly, since the extension host's own fetch does not use it), and a failure says why
// (an untrusted certificate: the CA hint) instead of "fetch failed".
import { randomUUID } from 'node:crypto';
import { secretCheckRequest } from '../../core/events';
import { describePostError } from '../../core/tree';
import type { PostAnswer } from '../../../relay/client';
import { loadRelayClient } from '../deps';
import { UserError } from '../errors';
import { log } from '../log';
import { extraCa } from './connection';

/** One POST to `url`; failures are values (their socket error code kept). */
export async function postAsService(url: string, headers: Record<string, string>, body: Uint8Array, timeoutMs = 10_000): Promise<PostAnswer> {
  const client = await loadRelayClient();
  return client.postAs(url, headers, body, { ca: url.startsWith('https:') ? extraCa() : undefined, timeoutMs });
}

/** The status `url` answered, or a UserError in words (the CA hint for an untrusted certificate). */
export async function statusOf(url: string, label: string, headers: Record<string, string>, body: Uint8Array, timeoutMs?: number): Promise<number> {
  const answer = await postAsService(url, headers, body, timeoutMs);
  if (answer.ok) return answer.status;
  throw new UserError(describePostError(label, answer));
}

/** What a relay channel needs to check a secret against: which channel an ingress URL is. */
export interface ChannelLookup {
  channelOf(url: string): string | undefined;
}

/**
 * Whether `secret` ('' : none) verifies at the relay channel `url` delivers to: a signed (or unsigned) test ping through its
 * ingress, answered 401 when it does not (then every delivery would be rejected). Returns the
 * problem in words, or undefined (verified, not a channel of the relay in use, or no answer: the
 * check cannot tell, and says so in the log).
 */
export async function secretMismatch(relay: ChannelLookup, url: string, secret: string): Promise<string | undefined> {
  const channel = relay.channelOf(url);
  if (channel === undefined) return undefined; // callers wait out a reconnect first (relayReady.ts): the channel is known once connected
  const req = secretCheckRequest(secret, randomUUID());
  const answer = await postAsService(url, req.headers, req.body);
  if (!answer.ok) {
    log().warn(`checking the secret against channel ${channel}: ${describePostError(url, answer)}`);
    return undefined;
  }
  if (answer.status !== 401) return undefined;
  if (!secret)
    return `Relay channel ${channel} verifies signatures: an unsigned test ping was rejected (401), so every delivery of a webhook without a secret would be. Enter the channel's own secret (ask whoever created the channel), or use a channel of the webhook's own.`;
  return `The secret does not verify at relay channel ${channel}: a test ping signed with it was rejected (401), so every delivery would be. Enter the channel's own secret (ask whoever created the channel), or use a channel of the webhook's own.`;
}
