// How a test send is told apart from a delivery the service made. `service-hooks send` (and any
// sample the editor sends) sets the delivery id header (X-Service-Delivery) to `test-<uuid>`: the
// relay records that header with the delivery and reports it as `deliveryId`, so the Webhooks view
// can mark the row "test send" and leave it out of the webhook's counts. The service's own ids
// never start with `test-` (the emulator's are UUIDs; a real service's: not shown, so a service id
// that did would be counted as a test send: the one false reading this rule allows).

export const TEST_DELIVERY_PREFIX = 'test-';

/** The delivery id a test send carries. */
export function testDeliveryId(uuid: string): string {
  return `${TEST_DELIVERY_PREFIX}${uuid}`;
}

/** Whether a delivery id marks a test send (not one of the service's deliveries). */
export function isTestDeliveryId(id: string | undefined): boolean {
  return id !== undefined && id.startsWith(TEST_DELIVERY_PREFIX);
}

/** Add Webhook's signed check of a secret against a channel: a test send no webhook made, shown under none. */
export const SECRET_CHECK_PREFIX = `${TEST_DELIVERY_PREFIX}secret-check-`;

export function secretCheckDeliveryId(uuid: string): string {
  return `${SECRET_CHECK_PREFIX}${uuid}`;
}

export function isSecretCheckId(id: string | undefined): boolean {
  return id !== undefined && id.startsWith(SECRET_CHECK_PREFIX);
}
