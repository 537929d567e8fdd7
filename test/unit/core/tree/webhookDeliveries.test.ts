// A webhook's own deliveries from a relay channel (src/core/tree): own or shared channel, test
// sends marked and not counted, a delivery's retries as one row, sorting by creation time, and
// Add Webhook's signed secret check never shown as a delivery.
import { strict as assert } from 'node:assert';
import {
  channelNote,
  deliveryChildren,
  deliveryDescription,
  deliveryLabel,
  deliveryTooltip,
  webhookRelayDeliveries,
  webhooksByChannel,
  type DeliveryView,
  type RelayDeliveryView,
} from '../../../../src/core/tree';
import { isTestDeliveryId, secretCheckDeliveryId, testDeliveryId } from '../../../../src/core/testSend';

const entry = (seq: number, event: string, over: Partial<RelayDeliveryView> = {}): RelayDeliveryView => ({
  seq,
  channel: 'alice',
  receivedAt: `2026-11-25T10:00:${String(seq).padStart(2, '0')}Z`,
  verification: 'verified',
  event,
  deliveryId: `svc-${seq}`,
  size: 10,
  forward: [{ target: 'subscriber', status: 'ok', lastStatus: 204, attempts: 1 }],
  ...over,
});

describe("a webhook's own deliveries from a relay channel", () => {
  const journal = [
    entry(1, 'push'),
    entry(2, 'release'),
    entry(3, 'pull_request', { verification: 'rejected', reason: 'mismatch', forward: [] }),
    entry(4, 'ping'),
    entry(5, 'push', { deliveryId: testDeliveryId('0d2b') }),
    entry(6, 'release', { forward: [{ target: 'subscriber', status: 'failed', lastStatus: 500, attempts: 4 }] }),
  ];
  it("own channel: every delivery is the webhook's, newest first; test sends shown marked and not counted", () => {
    const v = webhookRelayDeliveries(journal, { events: ['release'] }, false);
    assert.deepEqual(
      v.deliveries.map((d) => d.seq),
      [6, 5, 4, 3, 2, 1],
    );
    assert.equal(v.deliveries.find((d) => d.seq === 5)!.test, true);
    assert.deepEqual(v.counts, { total: 5, successful: 3, failed: 2 });
    assert.equal(v.tests, 1);
    assert.equal(v.otherEvents, 0);
  });
  it("shared channel: only the webhook's events (and ping), counted apart from test sends", () => {
    const release = webhookRelayDeliveries(journal, { events: ['release'] }, true);
    assert.deepEqual(
      release.deliveries.map((d) => [d.seq, d.event]),
      [
        [6, 'release'],
        [4, 'ping'],
        [2, 'release'],
      ],
    );
    assert.deepEqual(release.counts, { total: 3, successful: 2, failed: 1 });
    assert.equal(release.otherEvents, 3);
    const push = webhookRelayDeliveries(journal, { events: ['push', 'pull_request'] }, true);
    assert.deepEqual(
      push.deliveries.map((d) => d.seq),
      [5, 4, 3, 1],
    );
    assert.deepEqual(push.counts, { total: 3, successful: 2, failed: 1 }, 'the test push is not counted');
    assert.equal(push.tests, 1);
    const none = webhookRelayDeliveries([entry(9, 'push', { event: undefined })], { events: ['push'] }, true);
    assert.equal(none.deliveries.length, 0, "an entry without an event is nobody's on a shared channel");
  });
  it("the service's retries of one delivery (same delivery id, journaled each time) are one row with its attempts", () => {
    const v = webhookRelayDeliveries(
      [
        entry(1, 'push', { deliveryId: 'd1', verification: 'rejected', forward: [] }),
        entry(2, 'push', { deliveryId: 'd2' }),
        entry(3, 'push', { deliveryId: 'd1' }),
      ],
      { events: ['push'] },
      false,
    );
    assert.deepEqual(
      v.deliveries.map((d) => [d.id, d.seq, d.success, d.attempts?.length]),
      [
        ['d2', 2, true, undefined],
        ['d1', 3, true, 2],
      ],
      'newest created first',
    );
    assert.equal(v.deliveries[1]!.created_at, '2026-11-25T10:00:01Z', 'created at its first attempt');
    assert.equal(v.deliveries[1]!.delivered_at, '2026-11-25T10:00:03Z');
    assert.deepEqual(v.counts, { total: 2, successful: 2, failed: 0 });
  });
  it('finds which webhooks share a channel', () => {
    const relay = { bases: ['https://relay.example.com'], channels: [] };
    const m = webhooksByChannel(
      [
        { id: 'w1', url: 'https://relay.example.com/hooks/alice' },
        { id: 'w2', url: 'https://relay.example.com:443/hooks/alice?from=ci' },
        { id: 'w3', url: 'https://relay.example.com/hooks/bob' },
        { id: 'w4', url: 'https://elsewhere.example.com/hooks/alice' },
      ],
      relay,
    );
    assert.deepEqual(
      [...m],
      [
        ['alice', ['w1', 'w2']],
        ['bob', ['w3']],
      ],
    );
  });
  it('the count row names the channel and what was left out', () => {
    assert.equal(channelNote('alice', { tests: 0, otherEvents: 0 }, false), 'channel alice');
    assert.equal(channelNote('alice', { tests: 2, otherEvents: 3 }, true), "channel alice · shared: this webhook's events only · 2 test sends not counted");
  });
  it('test-send ids', () => {
    assert.equal(isTestDeliveryId('test-1'), true);
    assert.equal(isTestDeliveryId('1-test'), false);
    assert.equal(isTestDeliveryId(undefined), false);
  });
});

describe('delivery rows show and sort by creation time', () => {
  const d = (id: string, created: string, last: string): DeliveryView => ({
    id,
    event: 'push',
    delivered_at: last,
    success: false,
    status: 500,
    attempts: [{ at: created }, { at: last }],
  });
  it('label is the creation time; the last attempt goes to the description and tooltip', () => {
    const x = d('a', '2026-11-25T07:46:11Z', '2026-11-25T07:47:02Z');
    assert.equal(deliveryLabel(x), '2026-11-25 07:46:11 ✗ 500');
    assert.equal(deliveryDescription(x), 'push · last attempt 07:47:02');
    assert.match(deliveryTooltip(x, 'service'), /Created: 2026-11-25 07:46:11 UTC\nLast attempt: 2026-11-25 07:47:02 UTC/);
    assert.equal(deliveryDescription({ ...x, delivered_at: '2026-11-25T07:46:11Z' }), 'push', 'one attempt: no second time');
    assert.equal(deliveryDescription({ ...x, test: true, attempts: undefined, delivered_at: 'x' }), 'push · test send');
  });
  it('children are sorted newest created first, whatever the last attempt', () => {
    const rows = [
      d('b', '2026-11-25T07:46:52Z', '2026-11-25T07:46:52Z'),
      d('a', '2026-11-25T07:46:11Z', '2026-11-25T07:53:00Z'),
      d('c', '2026-11-25T07:47:02Z', '2026-11-25T07:47:02Z'),
    ];
    const kids = deliveryChildren({ owner: 'o', repo: 'r' }, { id: 'w', url: 'u', content_type: 'json', events: [], secret_set: false }, rows, 3, 'service');
    assert.deepEqual(
      kids.map((k) => (k.kind === 'delivery' ? k.delivery.id : k.kind)),
      ['c', 'b', 'a'],
    );
  });

  it("Add Webhook's signed check of a secret is no webhook's delivery: not shown, not counted (issue 36 item 19)", () => {
    const view = webhookRelayDeliveries(
      [entry(1, 'ping', { deliveryId: secretCheckDeliveryId('u1'), verification: 'rejected' }), entry(2, 'push')],
      { events: ['push'] },
      false,
    );
    assert.deepEqual(
      view.deliveries.map((d) => d.seq),
      [2],
    );
    assert.equal(view.tests, 0);
  });
});
