// The Relay view's model (src/core/tree): the live list newest first with updates replacing rows
// and the highest seq as resume point, rows' verification and forward status, and relay journal
// entries shown as webhook deliveries.
import { strict as assert } from 'node:assert';
import { SUBSCRIBER_TARGET } from '../../../../src/core/relay/protocol';
import { RelayLiveList, channelDescription, relayRow, relayToDelivery, type RelayDeliveryView } from '../../../../src/core/tree';

const rd = (seq: number, over: Partial<RelayDeliveryView> = {}): RelayDeliveryView => ({
  seq,
  channel: 'default',
  receivedAt: '2026-11-22T20:58:10Z',
  verification: 'verified',
  event: 'push',
  deliveryId: `d${seq}`,
  size: 120,
  forward: [{ target: 'http://127.0.0.1:3000/', status: 'ok', lastStatus: 200, attempts: 1 }],
  ...over,
});

describe('relay view model', () => {
  it('live list: newest first, updates replace, resume point is the highest seq', () => {
    const live = new RelayLiveList(3);
    for (const s of [1, 2, 3]) live.upsert(rd(s));
    live.upsert(rd(2, { forward: [{ target: 't', status: 'failed', lastStatus: 502, attempts: 3 }] }));
    assert.deepEqual(
      live.newestFirst().map((d) => d.seq),
      [3, 2, 1],
    );
    assert.equal(live.get(2)!.forward[0]!.status, 'failed');
    live.upsert(rd(4));
    assert.deepEqual(
      live.newestFirst().map((d) => d.seq),
      [4, 3, 2],
    );
    assert.equal(live.lastSeq, 4);
  });
  it('rows show verification and forward status', () => {
    const row = relayRow({ kind: 'relayDelivery', delivery: rd(7) });
    assert.equal(row.label, '#7 push');
    assert.match(row.description!, /✓ verified → 200/);
    assert.equal(row.contextValue, 'relayDelivery.verified');
    const rej = relayRow({ kind: 'relayDelivery', delivery: rd(8, { verification: 'rejected', reason: 'mismatch', forward: [] }) });
    assert.match(rej.description!, /✗ rejected not forwarded/);
    const both = relayRow({
      kind: 'relayDelivery',
      delivery: rd(9, {
        forward: [
          { target: 'http://127.0.0.1:3000/', status: 'ok', lastStatus: 200, attempts: 1 },
          { target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 204, attempts: 1 },
        ],
      }),
    });
    assert.match(both.description!, /✓ verified → 200, → 204 \(subscriber\) · /, 'the state a subscriber acked is told apart from the relay target');
    assert.match(
      String(both.tooltip),
      /Forward to http:\/\/127\.0\.0\.1:3000\/: ok \(HTTP 200\), 1 attempt\(s\)\nForward by a subscriber \(the editor or service-hooks forward\): ok \(HTTP 204\)/,
    );
    assert.equal(relayRow({ kind: 'relayState', state: 'running', port: 8788 }).label, 'Running on port 8788');
    assert.match(
      channelDescription({ name: 'default', received: 3, verified: 2, unverified: 0, rejected: 1, forwarded: 2, failed: 0 }),
      /received 3 · verified 2/,
    );
    assert.doesNotMatch(channelDescription({ name: 'default', received: 3, verified: 2, unverified: 0, rejected: 1, forwarded: 2, failed: 0 }), /refused/);
    assert.match(
      channelDescription({ name: 'a', received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0, refused: 4 }),
      /· refused 4 \(source not allowed\)$/,
    );
  });
  it('relay journal entries as webhook deliveries', () => {
    assert.deepEqual(relayToDelivery(rd(5)), { id: 'd5', seq: 5, event: 'push', delivered_at: '2026-11-22T20:58:10Z', success: true, status: 200 });
    const rej = relayToDelivery(rd(6, { verification: 'rejected', forward: [] }));
    assert.equal(rej.success, false);
    assert.match(rej.error!, /^signature rejected/);
    // The app's 401 is told apart from the relay's: the relay took it, the forward failed.
    const app = relayToDelivery(rd(7, { forward: [{ target: 'subscriber', status: 'failed', lastStatus: 401, attempts: 1 }] }));
    assert.deepEqual([app.success, app.status], [false, 401]);
    assert.equal(app.error, 'the relay took it; its forward by a subscriber (the editor or service-hooks forward) failed (the app answered 401)');
  });
});
