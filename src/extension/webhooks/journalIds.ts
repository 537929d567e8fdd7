// The service's delivery id of a row read from the relay journal: what the service's retry
// endpoint (POST /webhooks/<id>/deliveries/<delivery_id>/retry) needs, taken from the header named
// by serviceHooks.deliveryHeader as the relay recorded it. A test send (testSend.ts) has none of
// the service's: it cannot be retried there.
import { DELIVERY_HEADER } from '../../core/signing';
import { isTestDeliveryId } from '../../core/testSend';
import type { DeliveryView } from '../../core/tree';
import { settings } from '../config';
import { UserError } from '../errors';
import type { Services } from '../services';

/** The service's id of `d` (a relay-sourced row: `seq` set), read from the journal. */
export async function serviceDeliveryId(services: Services, d: DeliveryView): Promise<string> {
  if (d.seq === undefined) return d.id;
  if (d.test || isTestDeliveryId(d.id)) {
    throw new UserError(
      `Delivery #${d.seq} is a test send (service-hooks send or a sample), not one of the service's deliveries: the service cannot retry it. Replay it from the relay instead.`,
    );
  }
  const header = settings().deliveryHeader;
  // The relay reports X-Service-Delivery as deliveryId; another header name is read from the journal entry.
  if (header.toLowerCase() === DELIVERY_HEADER.toLowerCase() && !d.id.startsWith('relay-')) return d.id;
  const detail = await services.relay.getDelivery(d.seq);
  const id = detail.headers[header.toLowerCase()];
  if (!id)
    throw new UserError(
      `The relay journal holds no ${header} header for delivery #${d.seq}, so the service's delivery id is unknown and it cannot be retried there (check serviceHooks.deliveryHeader).`,
    );
  return id;
}
