// The store contract: the cases every relay store backend passes, whatever keeps its records (a
// DeliveryLog under the shared index, relay/server/store/logStore.ts). One runner per backend calls
// storeContract() with how to open it and what it can do (storeContract.*.test.ts), as nats-server
// runs one set of tests over its file and memory stores. Adding a backend: docs/store-backends.md.
import { strict as assert } from 'node:assert';
import type { ForwardAttempt, ForwardState } from '../../../../../src/core/relay/protocol';
import type { LogStore, LogStoreOptions } from '../../../../../relay/server/store/logStore';
import type { NewDelivery, StoredDelivery } from '../../../../../relay/server/base/storeTypes';
import { channelKey } from '../../../../../relay/server/base/channelKey';

export type ContractStore = LogStore;

export interface StoreUnderTest {
  /** The backend's name in the test titles. */
  name: string;
  /**
   * A fresh, empty store. `now` is the clock of receipt times and of the age limit where the
   * backend takes one (`clock`); `retention` what applyRetention() keeps.
   */
  open(options?: LogStoreOptions): Promise<ContractStore>;
  /** Opens the data of the last store open() made, after it was closed (a backend that keeps data across a restart). */
  reopen?(options?: LogStoreOptions): Promise<ContractStore>;
  /** A second store on the data of the last store open() made, while it is open (a log shared by several relays). */
  another?(): Promise<ContractStore>;
  /** The backend takes the clock (receipt times and the age limit follow `now`). */
  clock: boolean;
  /**
   * Makes the store unable to take deliveries (a full disk, the server gone) and resolves once it
   * says so; `heal` undoes it and resolves once it takes deliveries again. Absent: a backend
   * that cannot fail (memory).
   */
  fault?(store: ContractStore): Promise<{ heal(): Promise<void> }>;
}

const APP = 'http://127.0.0.1:9/app';

function delivery(n: number, extra: Partial<NewDelivery> = {}): NewDelivery {
  return {
    channel: 'default',
    verification: 'verified',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Service-Event', 'push'],
      ['X-Service-Delivery', `d-${n}`],
      ['x-dup', 'a'],
      ['X-Dup', 'b'],
    ],
    targets: [APP],
    ...extra,
  };
}

/** A body that is not text: every byte value, and `n` so each differs. */
function bodyOf(n: number, size = 300): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + n) & 0xff;
  return b;
}

function ok(at: number, status = 200): { attempt: ForwardAttempt; state: ForwardState } {
  return {
    attempt: { target: APP, at: new Date(at).toISOString(), status, ok: status < 300, durationMs: 4 },
    state: { target: APP, status: status < 300 ? 'ok' : 'failed', lastStatus: status, attempts: 1 },
  };
}

const seqs = (it: Iterable<StoredDelivery>) => [...it].map((e) => e.seq);

/** Resolves with the next `n` 'delivery' events' seqs. */
function nextDeliveries(store: ContractStore, n: number): Promise<number[]> {
  return new Promise((resolve) => {
    const got: number[] = [];
    const on = (d: StoredDelivery) => {
      got.push(d.seq);
      if (got.length < n) return;
      store.off('delivery', on);
      resolve(got);
    };
    store.on('delivery', on);
  });
}

export function storeContract(b: StoreUnderTest): void {
  describe(`store contract: ${b.name}`, function () {
    this.timeout(60_000);
    const open: ContractStore[] = [];
    const track = async (s: Promise<ContractStore>) => {
      const store = await s;
      open.push(store);
      return store;
    };
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close().catch(() => undefined);
    });

    it('appends and reads back by seq: headers in order, body byte-exact, the summary and the detail', async () => {
      const store = await track(b.open());
      assert.equal(store.health().notReady, undefined);
      assert.deepEqual(store.integrity(), { corruptRecords: 0, corruptBytes: 0, truncatedBytes: 0 });
      const first = store.begin(delivery(1), bodyOf(1));
      const d1 = await first.durable;
      assert.ok(first.seq === 0 || first.seq === d1.seq, 'begin gives the seq at once, or 0 when it comes with durability');
      const d2 = await store.add(delivery(2, { verification: 'unverified' }), bodyOf(2, 70_000));
      assert.ok(d1.seq > 0 && d2.seq > d1.seq);
      const r = await store.read(d2.seq);
      assert.ok(r);
      assert.deepEqual(r.meta.headers, delivery(2).headers);
      assert.deepEqual([r.meta.seq, r.meta.channel, r.meta.verification, r.meta.targets], [d2.seq, 'default', 'unverified', [APP]]);
      assert.ok(r.body.equals(bodyOf(2, 70_000)));
      const s = store.get(d1.seq)!.summary;
      assert.deepEqual([s.seq, s.channel, s.verification, s.event, s.deliveryId, s.size], [d1.seq, 'default', 'verified', 'push', 'd-1', 300]);
      assert.deepEqual(s.forward, [{ target: APP, status: 'pending', attempts: 0 }]);
      const detail = await store.detail(d1.seq);
      assert.equal(detail?.headers['x-dup'], 'a, b');
      assert.ok(Buffer.from(detail!.bodyBase64, 'base64').equals(bodyOf(1)));
      assert.equal(await store.read(d2.seq + 1000), undefined, 'no delivery, no record');
      assert.equal(store.get(d2.seq + 1000), undefined);
      assert.ok(store.lastSeq >= d2.seq);
      assert.equal(store.size, 2);
    });

    it('keeps the order: concurrent appends get distinct ascending seqs; after() ascends, list() pages newest first', async () => {
      const store = await track(b.open());
      const added = await Promise.all(Array.from({ length: 20 }, (_, i) => store.add(delivery(i), bodyOf(i, 10))));
      const all = added.map((d) => d.seq).sort((x, y) => x - y);
      assert.equal(new Set(all).size, 20);
      assert.deepEqual(seqs(store.after(0)), all);
      assert.equal(store.lastSeq, all[19]);
      const newest = store.list({ limit: 5 }).map((s) => s.seq);
      assert.deepEqual(newest, all.slice(15).reverse());
      assert.deepEqual(
        store.list({ limit: 5, before: newest[4] }).map((s) => s.seq),
        all.slice(10, 15).reverse(),
      );
      assert.deepEqual(
        store.list({ since: all[17] }).map((s) => s.seq),
        all.slice(18).reverse(),
      );
      for (const [i, d] of added.entries()) assert.ok((await store.read(d.seq))!.body.equals(bodyOf(i, 10)));
    });

    it('follows from a seq: what is held after it, then live appends, each once and in order', async () => {
      const store = await track(b.open());
      const held = [];
      for (let i = 0; i < 3; i++) held.push((await store.add(delivery(i), bodyOf(i, 10))).seq);
      assert.deepEqual(seqs(store.after(held[0]!)), held.slice(1));
      const live = nextDeliveries(store, 2);
      const more = [(await store.add(delivery(3), bodyOf(3, 10))).seq, (await store.add(delivery(4), bodyOf(4, 10))).seq];
      assert.deepEqual(await live, more);
      assert.deepEqual(seqs(store.after(held[0]!)), [...held.slice(1), ...more]);
    });

    if (b.another) {
      it('follows appends made by another store on the same log (another relay instance)', async () => {
        const first = await track(b.open());
        await first.add(delivery(0), bodyOf(0, 10));
        const second = await track(b.another!());
        assert.deepEqual(seqs(second.after(0)), seqs(first.after(0)));
        const seen = nextDeliveries(first, 1);
        const d = await second.add(delivery(1), bodyOf(1, 10));
        assert.deepEqual(await seen, [d.seq]);
        assert.ok((await first.read(d.seq))!.body.equals(bodyOf(1, 10)));
        const told = new Promise<number>((resolve) => first.once('forward', (seq) => resolve(seq)));
        const { attempt, state } = ok(Date.now());
        await second.recordAttempt(d.seq, attempt, state);
        assert.equal(await told, d.seq);
        assert.equal(first.forwardState(d.seq, APP)?.status, 'ok');
      });
    }

    it('records attempts: the forward event, the state, the attempts, pending, the counts and the status filter', async () => {
      const store = await track(b.open());
      const [a, c] = [await store.add(delivery(1), bodyOf(1, 10)), await store.add(delivery(2), bodyOf(2, 10))];
      assert.deepEqual(seqs(store.pending()), [a.seq, c.seq]);
      const told = new Promise<[number, ForwardAttempt, ForwardState | undefined]>((resolve) => store.once('forward', (...args) => resolve(args)));
      const done = ok(Date.parse('2026-11-25T10:00:00Z'));
      await store.recordAttempt(a.seq, done.attempt, done.state);
      assert.deepEqual(await told, [a.seq, done.attempt, done.state]);
      const failed = ok(Date.parse('2026-11-25T10:00:01Z'), 500);
      await store.recordAttempt(c.seq, failed.attempt, failed.state, { lazy: true });
      await store.recordAttempt(c.seq, { ...failed.attempt, target: 'http://127.0.0.1:9/other', replay: true }); // a replay elsewhere: no state
      assert.deepEqual(store.forwardState(a.seq, APP), done.state);
      assert.deepEqual(store.get(a.seq)!.attempts, [done.attempt]);
      assert.equal(store.get(c.seq)!.attempts.length, 2);
      assert.deepEqual(store.pending(), []);
      const [row] = store.channels();
      assert.deepEqual([row!.received, row!.forwarded, row!.failed, row!.pending], [2, 1, 1, 0]);
      assert.deepEqual(
        store.list({ status: 'ok' }).map((s) => s.seq),
        [a.seq],
      );
      assert.deepEqual(
        store.list({ status: 'failed' }).map((s) => s.seq),
        [c.seq],
      );
    });

    it('prunes by count: --keep counts accepted deliveries only, and a pruned delivery is gone', async () => {
      const store = await track(b.open());
      const kinds = ['verified', 'rejected', 'unverified', 'verified', 'rejected', 'verified', 'unverified'] as const;
      const added = [];
      for (const [i, v] of kinds.entries())
        added.push((await store.add(delivery(i, { verification: v, ...(v === 'rejected' ? { targets: [] } : {}) }), bodyOf(i, 10))).seq);
      const res = await store.prune({ keep: 3 }); // the newest 3 accepted: the 4th, 6th and 7th; the rejected 5th lies between them
      assert.deepEqual(seqs(store.after(0)), added.slice(3));
      assert.deepEqual(res, { removed: 3, remaining: 4 });
      assert.equal(await store.read(added[0]!), undefined);
      assert.equal(store.get(added[0]!), undefined);
      assert.deepEqual(await store.prune({ keep: 3 }), { removed: 0, remaining: 4 }, 'nothing more to prune');
      await store.prune({ keep: 0 });
      assert.deepEqual([store.size, store.list({}).length, store.channels().length], [0, 0, 0]);
      const next = await store.add(delivery(9), bodyOf(9, 10));
      assert.ok(next.seq > added[6]!, 'a seq is never given out twice');
    });

    it('applies the configured retention: --keep accepted, --keep-rejected rejected ones apart', async () => {
      const store = await track(b.open({ retention: { maxCount: 2, maxRejected: 1 } }));
      const added: { seq: number; v: string }[] = [];
      for (const [i, v] of (['rejected', 'verified', 'rejected', 'verified', 'verified', 'rejected', 'unverified'] as const).entries()) {
        added.push({ seq: (await store.add(delivery(i, { verification: v, ...(v === 'rejected' ? { targets: [] } : {}) }), bodyOf(i, 10))).seq, v });
      }
      await store.applyRetention();
      const left = added.filter((_, i) => i === 4 || i === 5 || i === 6).map((d) => d.seq); // 2 accepted, 1 rejected
      assert.deepEqual(seqs(store.after(0)), left);
      const [row] = store.channels();
      assert.deepEqual([row!.received, row!.rejected, row!.verified, row!.unverified], [3, 1, 1, 1]);
      assert.deepEqual(
        store.list({ status: 'rejected' }).map((s) => s.seq),
        [left[1]],
      );
      // More rejected traffic never pushes an accepted delivery out.
      for (let i = 0; i < 4; i++) await store.add(delivery(10 + i, { verification: 'rejected', targets: [] }), bodyOf(i, 10));
      await store.applyRetention();
      assert.deepEqual(
        store.list({ status: 'verified' }).map((s) => s.seq),
        [left[0]],
      );
      assert.equal(store.list({ status: 'rejected' }).length, 1);
    });

    if (b.clock) {
      it('prunes by age: deliveries received before the cutoff go', async () => {
        let now = Date.parse('2026-11-25T10:00:00Z');
        const store = await track(b.open({ now: () => now }));
        const added = [];
        for (let i = 0; i < 4; i++) {
          now += 60_000;
          added.push((await store.add(delivery(i), bodyOf(i, 10))).seq);
        }
        now += 60_000;
        await store.prune({ olderThanMs: 150_000 }); // received more than 2.5 minutes ago: the first two
        assert.deepEqual(seqs(store.after(0)), added.slice(2));
        assert.equal(store.get(added[2]!)!.summary.receivedAt, '2026-11-25T10:03:00.000Z');
      });
    }

    it('keeps channel identities apart: a re-created channel (another generation) starts empty', async () => {
      const store = await track(b.open());
      const old = await store.add(delivery(1, { channel: 'ch', gen: 'g1' }), bodyOf(1, 10));
      const fresh = await store.add(delivery(2, { channel: 'ch', gen: 'g2' }), bodyOf(2, 10));
      await store.add(delivery(3, { channel: 'other' }), bodyOf(3, 10));
      assert.deepEqual(seqs(store.after(0, channelKey('ch', 'g2'))), [fresh.seq]);
      assert.deepEqual(
        store.list({ channel: channelKey('ch', 'g1') }).map((s) => s.seq),
        [old.seq],
      );
      assert.equal(store.lastSeqOf(channelKey('ch', 'g1')), old.seq);
      assert.equal(store.lastSeqOf(channelKey('ch', 'g2')), fresh.seq);
      assert.equal(store.lastSeqOf(channelKey('ch', 'g3')), 0);
      assert.deepEqual(
        store.channels().map((c) => `${c.name} ${c.key} ${c.received}`),
        ['ch ch@g1 1', 'ch ch@g2 1', 'other other 1'],
      );
      assert.equal(store.get(fresh.seq)!.channelKey, 'ch@g2');
      assert.equal(store.get(fresh.seq)!.summary.channel, 'ch');
    });

    if (b.reopen) {
      it('keeps everything across a restart: deliveries, attempts, identities, the prune floor, and seqs are not given out again', async () => {
        const store = await track(b.open());
        const added = [];
        for (let i = 0; i < 5; i++)
          added.push((await store.add(delivery(i, { channel: 'ch', gen: 'g1', verification: i === 2 ? 'rejected' : 'verified' }), bodyOf(i, 1000))).seq);
        const { attempt, state } = ok(Date.parse('2026-11-25T10:00:00Z'));
        await store.recordAttempt(added[4]!, attempt, state);
        await store.prune({ keep: 3 }); // the first accepted goes
        const before = { list: store.list({}), channels: store.channels(), lastSeq: store.lastSeq };
        await store.close();
        const again = await track(b.reopen!());
        assert.deepEqual(again.list({}), before.list);
        assert.deepEqual(again.channels(), before.channels);
        assert.ok(again.lastSeq >= before.lastSeq);
        assert.deepEqual(again.get(added[4]!)!.attempts, [attempt]);
        assert.deepEqual(again.forwardState(added[4]!, APP), state);
        assert.equal(again.get(added[4]!)!.channelKey, 'ch@g1');
        assert.ok((await again.read(added[3]!))!.body.equals(bodyOf(3, 1000)));
        assert.equal(await again.read(added[0]!), undefined);
        const next = await again.add(delivery(9), bodyOf(9, 10));
        assert.ok(next.seq > before.lastSeq);
      });

      it("keeps each channel identity's lastSeq across a prune that took its deliveries and a restart", async () => {
        const store = await track(b.open());
        const mine = await store.add(delivery(0, { channel: 'ch', gen: 'g1' }), bodyOf(0, 10));
        const other = await store.add(delivery(1, { channel: 'other' }), bodyOf(1, 10));
        await store.prune({ keep: 1 }); // ch@g1's only delivery goes, other's stays
        assert.equal(store.lastSeqOf(channelKey('ch', 'g1')), mine.seq);
        await store.close();
        const again = await track(b.reopen!());
        assert.equal(again.lastSeqOf(channelKey('ch', 'g1')), mine.seq);
        await again.prune({ keep: 0 }); // every delivery goes (the file journal's segments too)
        await again.close();
        const third = await track(b.reopen!());
        assert.deepEqual([third.lastSeqOf(channelKey('ch', 'g1')), third.lastSeqOf('other'), third.lastSeqOf('never')], [mine.seq, other.seq, 0]);
      });
    }

    if (b.fault) {
      it('health: ready, not ready while it cannot store (the delivery refused, not lost), ready again after', async () => {
        const store = await track(b.open());
        await store.add(delivery(0), bodyOf(0, 10));
        assert.deepEqual(store.health(), {});
        const fault = await b.fault!(store);
        const h = store.health();
        assert.equal(typeof h.notReady, 'string');
        assert.ok(!h.fatal, 'a restart is not needed');
        await fault.heal();
        const d = await store.add(delivery(1), bodyOf(1, 10));
        assert.ok((await store.read(d.seq))!.body.equals(bodyOf(1, 10)));
        assert.equal(store.health().notReady, undefined);
      });
    }
  });
}
