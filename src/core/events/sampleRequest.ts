// Send Sample Event… (like `stripe trigger`): the request the service would send for a typed sample
// of one of the seven events: JSON body, the service's headers, signed with the secret when there
// is one, and marked as a test send (X-Service-Delivery: test-<uuid>, src/core/testSend.ts) so
// the views do not count it as one of the service's deliveries.
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign } from '../signing';
import { secretCheckDeliveryId, testDeliveryId } from '../testSend';
import { samplePayload, type SampleOptions } from './samples';
import { validatePayload } from './validate';
import type { EventType } from './types';

export const SAMPLE_USER_AGENT = 'service-hooks-editor (sample)';

export interface SampleRequest {
  headers: Record<string, string>;
  body: Buffer;
  deliveryId: string;
}

/** The sample's request; `secret` undefined or empty: unsigned (as the service sends for a webhook without one). */
export function sampleRequest(event: EventType, uuid: string, secret: string | undefined, opts: SampleOptions = {}): SampleRequest {
  const payload = samplePayload(event, opts);
  const checked = validatePayload(event, payload);
  if (!checked.ok) throw new Error(`the ${event} sample does not pass its own validation: ${JSON.stringify(checked)}`);
  const body = Buffer.from(JSON.stringify(payload));
  const deliveryId = testDeliveryId(uuid);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': SAMPLE_USER_AGENT,
    [EVENT_HEADER]: event,
    [DELIVERY_HEADER]: deliveryId,
  };
  if (secret) headers[SIGNATURE_HEADER] = sign(secret, body);
  return { headers, body, deliveryId };
}

/**
 * A signed `ping` that Add Webhook posts through a relay channel's ingress before it creates a
 * webhook with a typed secret: the relay answers 401 when the secret is not the channel's (every
 * delivery would be rejected). Marked as a test send, so the views do not count it.
 */
export function secretCheckRequest(secret: string, uuid: string): SampleRequest {
  const body = Buffer.from(JSON.stringify({ event: 'ping', zen: "Add Webhook checks the webhook's secret against the channel" }));
  const deliveryId = secretCheckDeliveryId(uuid); // a test send, and shown under no webhook
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': SAMPLE_USER_AGENT,
    [EVENT_HEADER]: 'ping',
    [DELIVERY_HEADER]: deliveryId,
  };
  if (secret) headers[SIGNATURE_HEADER] = sign(secret, body); // '': unsigned, as a webhook without a secret sends
  return { headers, body, deliveryId };
}
