// Pins issue 36 items 14, 15 and 18 in the view model: a relay row says who refused it (the app,
// or the relay for its signature), which retry it needs (the service's, a replay, a re-signed
// replay), that a retry pending is "retrying" and not ✓, and that a replay that succeeded makes
// the row ✓; Retry All Failed counts the service's retries and the relay's replays apart.
import { strict as assert } from 'node:assert';
import {
  deliveriesLabel,
  deliveryLabel,
  relayToDelivery,
  retryAllSummary,
  retryRoute,
  webhookRelayDeliveries,
  type RelayDeliveryView,
} from '../../../../src/core/tree';

const entry = (seq: number, over: Partial<RelayDeliveryView> = {}): RelayDeliveryView => ({
  seq,
  channel: 'default',
  receivedAt: `2026-11-25T10:00:0${seq}Z`,
  verification: 'verified',
  event: 'push',
  deliveryId: `svc-${seq}`,
  size: 10,
  forward: [],
  ...over,
});

describe('retry routes of relay rows (issue 36 items 14, 15, 18)', () => {
  it('a row the app refused is replayed from the relay, not retried at the service', () => {
    const d = relayToDelivery(entry(1, { forward: [{ target: 'http://127.0.0.1:3000/', status: 'failed', lastStatus: 400, attempts: 1 }] }));
    assert.equal(d.refusedBy, 'app');
    assert.equal(deliveryLabel(d).endsWith('✗ 400'), true);
    assert.equal(retryRoute(d), 'replay');
  });

  it('a row the relay rejected is retried at the service only when its signature matches the channel now; else re-signed', () => {
    const d = relayToDelivery(entry(2, { verification: 'rejected', reason: 'signature mismatch' }));
    assert.equal(d.refusedBy, 'signature');
    assert.equal(retryRoute(d, false), 'resign');
    assert.equal(retryRoute(d, true), 'service');
  });

  it("a service row is the service's to retry", () => {
    assert.equal(retryRoute({ refusedBy: undefined }), 'service');
  });

  it('a delivery the app answered 500 with a retry pending shows retrying, not ✓, and is not counted as either', () => {
    const d = relayToDelivery(entry(3, { forward: [{ target: 'subscriber', status: 'pending', lastStatus: 500, attempts: 1 }] }));
    assert.equal(d.success, false);
    assert.equal(d.retrying, true);
    assert.match(deliveryLabel(d), /↻ 500 retrying$/);
    const view = webhookRelayDeliveries(
      [entry(3, { forward: [{ target: 'subscriber', status: 'pending', lastStatus: 500, attempts: 1 }] }), entry(4)],
      { events: ['push'] },
      false,
    );
    assert.equal(deliveriesLabel(view.counts), 'Deliveries 2 · ✓ 1 · ✗ 0 · ↻ 1');
  });

  it('a replay that succeeded (the forward state ok) makes the row ✓, after a refusal and after a rejection', () => {
    const replayed = relayToDelivery(entry(5, { forward: [{ target: 'subscriber', status: 'ok', lastStatus: 200, attempts: 2 }] }));
    assert.deepEqual([replayed.success, replayed.status], [true, 200]);
    const resigned = relayToDelivery(entry(6, { verification: 'rejected', forward: [{ target: 'subscriber', status: 'ok', lastStatus: 204, attempts: 1 }] }));
    assert.deepEqual([resigned.success, resigned.status, resigned.refusedBy], [true, 204, undefined]);
  });

  it('Retry All Failed counts the retries at the service and the replays from the relay apart', () => {
    const text = retryAllSummary({ retried: 1, stillFailing: 0, replayed: 1, replayRefused: 0, needResign: 1, errors: [] });
    assert.equal(
      text,
      'Retried 1 delivery at the service; 0 still failing; replayed 1 delivery the app had refused from the relay; 0 refused again; 1 delivery rejected for its signature: a retry at the service resends the same signature, so use Replay Re-signed from the relay.',
    );
    assert.doesNotMatch(
      retryAllSummary({ retried: 0, stillFailing: 0, replayed: 2, replayRefused: 1, needResign: 0, errors: [] }),
      /could not be retried|at the service/,
    );
  });
});
