// The JetStream store's index (relay/server/nats/index.ts), on its own: it is the file store's
// CompactIndex behind the JetStream store's calls, so both stores list, count and prune alike.
import { strict as assert } from 'node:assert';
import { DeliveryIndex } from '../../../relay/server/nats/index';
import { SUBSCRIBER_TARGET } from '../../../src/core/relay/protocol';
import type { DeliveryMeta } from '../../../relay/server/store/storeTypes';

const APP = 'http://127.0.0.1:3000/hook';
const T0 = Date.parse('2026-11-23T10:00:00.000Z');

function meta(seq: number, extra: Partial<DeliveryMeta> = {}): DeliveryMeta {
  return {
    seq,
    channel: 'default',
    receivedAt: new Date(T0 + seq * 1000).toISOString(),
    verification: 'verified',
    headers: [['X-Service-Event', 'push'], ['X-Service-Delivery', `d-${seq}`]],
    targets: [APP],
    ...extra,
  };
}

describe('JetStream store index (relay/server/nats/index.ts)', () => {
  it('summarises a delivery as the file store does: ids from the headers, body size, one pending forward per target', () => {
    const index = new DeliveryIndex();
    const d = index.insert(meta(1), 9_400)!;
    assert.deepEqual(
      { ...d.summary },
      { seq: 1, channel: 'default', receivedAt: '2026-11-23T10:00:01.000Z', verification: 'verified', event: 'push', deliveryId: 'd-1', size: 9_400, forward: [{ target: APP, status: 'pending', attempts: 0 }] },
    );
    assert.equal(index.insert(meta(1), 1), undefined, 'a repeated seq is ignored');
    assert.equal(index.insert(meta(2, { verification: 'rejected', reason: 'bad signature' }), 10)!.summary.forward.length, 0, 'a rejected delivery is not forwarded');
    assert.deepEqual(index.pending().map((e) => e.seq), [1]);
    assert.equal(index.firstSeq, 1);
    assert.equal(new DeliveryIndex().firstSeq, 0);
  });

  it('applies attempts: the forward state, the attempts list, the channel counters and the pending set follow', () => {
    const index = new DeliveryIndex();
    index.insert(meta(1), 10);
    index.insert(meta(2), 10);
    const at = new Date(T0 + 5000).toISOString();
    index.applyAttempt(1, { target: APP, at, status: 200, ok: true, durationMs: 3 }, { target: APP, status: 'ok', lastStatus: 200, attempts: 1 });
    index.applyAttempt(2, { target: SUBSCRIBER_TARGET, at, status: 204, ok: true, durationMs: 0 }, { target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 204, attempts: 1 });
    assert.deepEqual(index.forwardState(1, APP), { target: APP, status: 'ok', lastStatus: 200, attempts: 1 });
    assert.deepEqual(index.get(1)!.attempts, [{ target: APP, at, status: 200, ok: true, durationMs: 3 }]);
    assert.deepEqual(index.get(2)!.summary.forward.map((f) => `${f.target} ${f.status}`), [`${APP} pending`, `${SUBSCRIBER_TARGET} ok`]);
    assert.deepEqual(index.pending().map((e) => e.seq), [2]);
    assert.deepEqual(index.channels(), [{ name: 'default', key: 'default', received: 2, verified: 2, unverified: 0, rejected: 0, forwarded: 1, failed: 0, pending: 1 }]);
    assert.deepEqual(index.list({ status: 'ok' }).map((s) => s.seq), [1]);
    assert.deepEqual([...index.after(1)].map((e) => e.seq), [2]);
  });

  it('keepFrom: the first seq that stays under a count and an age limit; dropBelow forgets the rest', () => {
    const index = new DeliveryIndex();
    for (let seq = 1; seq <= 5; seq++) index.insert(meta(seq), 10);
    assert.equal(index.keepFrom(undefined, undefined), 1);
    assert.equal(index.keepFrom(2, undefined), 4);
    assert.equal(index.keepFrom(10, undefined), 1);
    assert.equal(index.keepFrom(0, undefined), undefined, 'nothing stays');
    assert.equal(index.keepFrom(undefined, T0 + 3000), 3, 'received before 10:00:03 goes');
    assert.equal(index.keepFrom(4, T0 + 4000), 4, 'the stricter limit wins');
    assert.equal(index.keepFrom(undefined, T0 + 60_000), undefined);
    assert.equal(index.dropBelow(4), 3);
    assert.deepEqual([index.size, index.firstSeq, index.get(3), index.channels()[0]!.received], [2, 4, undefined, 2]);
  });
});
