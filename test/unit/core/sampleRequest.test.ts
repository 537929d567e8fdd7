// Send Sample Event's request: a typed sample of each of the seven events that passes the
// payload validator, the service's headers, signed with the secret, marked as a test send.
import { strict as assert } from 'node:assert';
import { EVENT_TYPES, sampleRequest, validatePayload } from '../../../src/core/events';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, verify } from '../../../src/core/signing';
import { isTestDeliveryId } from '../../../src/core/testSend';

describe('sample request (Send Sample Event…)', () => {
  it('each of the seven events: a valid typed payload, signed with the secret, marked as a test send', () => {
    assert.equal(EVENT_TYPES.length, 7);
    for (const event of EVENT_TYPES) {
      const r = sampleRequest(event, '0b6c1f3e-1111-4222-8333-444455556666', 'sample-secret-123', { owner: 'acme', repo: 'widgets' });
      const payload = JSON.parse(r.body.toString('utf8'));
      assert.ok(validatePayload(event, payload).ok, event);
      assert.equal(r.headers[EVENT_HEADER], event);
      assert.equal(r.headers['Content-Type'], 'application/json');
      assert.equal(r.headers[DELIVERY_HEADER], 'test-0b6c1f3e-1111-4222-8333-444455556666');
      assert.ok(isTestDeliveryId(r.deliveryId));
      assert.deepEqual(verify(r.body, r.headers[SIGNATURE_HEADER], ['sample-secret-123']), { ok: true, index: 0 });
      assert.equal(payload.repository?.full_name ?? 'acme/widgets', 'acme/widgets');
    }
  });

  it('no secret (or an empty one): unsigned, as the service sends for a webhook without a secret', () => {
    assert.equal(sampleRequest('push', 'u', undefined).headers[SIGNATURE_HEADER], undefined);
    assert.equal(sampleRequest('push', 'u', '').headers[SIGNATURE_HEADER], undefined);
  });
});
