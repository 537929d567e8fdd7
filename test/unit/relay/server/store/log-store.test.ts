// The index every store shares (relay/server/store/logStore.ts), over the in-memory log: what it
// summarises, counts and keeps from the records a log feeds it. (It was the JetStream store's
// index, relay/server/nats/index.ts, before the index was built once for every backend.)
import { strict as assert } from 'node:assert';
import { openMemoryStore } from '../../../../../relay/server/store/memoryLog';
import { SUBSCRIBER_TARGET } from '../../../../../src/core/relay/protocol';
import type { NewDelivery } from '../../../../../relay/server/base/storeTypes';

const APP = 'http://127.0.0.1:3000/hook';
const T0 = Date.parse('2026-11-23T10:00:00.000Z');

/** The stores' clock (the tests set it). */
let now = T0;

/** A store whose clock the test sets; add(seq, …) receives at T0 + seq seconds. */
async function storeAt() {
  const store = await openMemoryStore({ now: () => now });
  return Object.assign(store, {
    at: (seq: number, body: Buffer, extra: Partial<NewDelivery> = {}) => {
      now = T0 + seq * 1000;
      return store.add(meta(seq, extra), body);
    },
  });
}

function meta(seq: number, extra: Partial<NewDelivery> = {}): NewDelivery {
  return {
    channel: 'default',
    verification: 'verified',
    headers: [
      ['X-Service-Event', 'push'],
      ['X-Service-Delivery', `d-${seq}`],
    ],
    targets: [APP],
    ...extra,
  };
}

describe('the shared store index over a log (relay/server/store/logStore.ts)', () => {
  it('summarises a delivery: ids from the headers, body size, one pending forward per target', async () => {
    const store = await storeAt();
    const d = await store.at(1, Buffer.alloc(9_400));
    assert.deepEqual(
      { ...d.summary },
      {
        seq: 1,
        channel: 'default',
        receivedAt: '2026-11-23T10:00:01.000Z',
        verification: 'verified',
        event: 'push',
        deliveryId: 'd-1',
        size: 9_400,
        forward: [{ target: APP, status: 'pending', attempts: 0 }],
      },
    );
    assert.equal(
      (await store.at(2, Buffer.alloc(10), { verification: 'rejected', reason: 'bad signature' })).summary.forward.length,
      0,
      'a rejected delivery is not forwarded',
    );
    assert.deepEqual(
      store.pending().map((e) => e.seq),
      [1],
    );
  });

  it('applies attempts: the forward state, the attempts list, the channel counters and the pending set follow', async () => {
    const store = await storeAt();
    await store.at(1, Buffer.alloc(10));
    await store.at(2, Buffer.alloc(10));
    const at = new Date(T0 + 5000).toISOString();
    await store.recordAttempt(1, { target: APP, at, status: 200, ok: true, durationMs: 3 }, { target: APP, status: 'ok', lastStatus: 200, attempts: 1 });
    await store.recordAttempt(
      2,
      { target: SUBSCRIBER_TARGET, at, status: 204, ok: true, durationMs: 0 },
      { target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 204, attempts: 1 },
    );
    assert.deepEqual(store.forwardState(1, APP), { target: APP, status: 'ok', lastStatus: 200, attempts: 1 });
    assert.deepEqual(store.get(1)!.attempts, [{ target: APP, at, status: 200, ok: true, durationMs: 3 }]);
    assert.deepEqual(
      store.get(2)!.summary.forward.map((f) => `${f.target} ${f.status}`),
      [`${APP} pending`, `${SUBSCRIBER_TARGET} ok`],
    );
    assert.deepEqual(
      store.pending().map((e) => e.seq),
      [2],
    );
    assert.deepEqual(store.channels(), [
      { name: 'default', key: 'default', received: 2, verified: 2, unverified: 0, rejected: 0, forwarded: 1, failed: 0, pending: 1 },
    ]);
    assert.deepEqual(
      store.list({ status: 'ok' }).map((s) => s.seq),
      [1],
    );
    assert.deepEqual(
      [...store.after(1)].map((e) => e.seq),
      [2],
    );
  });

  it('prune: the first seq that stays under a count and an age limit; the rest is forgotten', async () => {
    const kept = async (keep: number | undefined, olderThanMs: number | undefined) => {
      const store = await storeAt();
      for (let seq = 1; seq <= 5; seq++) await store.at(seq, Buffer.alloc(10));
      now = T0 + 6000; // older than 3 s: received before 10:00:03
      await store.prune({ ...(keep !== undefined ? { keep } : {}), ...(olderThanMs !== undefined ? { olderThanMs } : {}) });
      return [...store.after(0)].map((e) => e.seq);
    };
    assert.deepEqual(await kept(undefined, undefined), [1, 2, 3, 4, 5]);
    assert.deepEqual(await kept(2, undefined), [4, 5]);
    assert.deepEqual(await kept(10, undefined), [1, 2, 3, 4, 5]);
    assert.deepEqual(await kept(0, undefined), [], 'nothing stays');
    assert.deepEqual(await kept(undefined, 3000), [3, 4, 5], 'received before 10:00:03 goes');
    assert.deepEqual(await kept(4, 2000), [4, 5], 'the stricter limit wins');
    assert.deepEqual(await kept(undefined, 0), []);
  });
});
