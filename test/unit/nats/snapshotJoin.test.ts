// Issue 40 item 4: a JetStream relay instance joins from an index snapshot in the object store.
// It answers every query exactly as an instance that read both streams from the start, indexes
// what arrives while it joins once, and never trusts a snapshot of another stream, of a purged
// one, a damaged object or another format: it then reads the streams as before.
import { strict as assert } from 'node:assert';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { connectNats } from '../../../relay/server/nats/connect';
import { openNatsStore } from '../../../relay/server/nats/wiring';
import { NatsStore, type NatsStoreOptions } from '../../../relay/server/nats/natsStore';
import type { Position } from '../../../relay/server/nats/natsSnapshot';
import { SNAPSHOT_OBJECT, snapshotBucket } from '../../../relay/server/nats/snapshotObject';
import { Signal } from '../../support/until';
import { answers, random, run } from '../relay/server/store/snapshotWorld';
import { startNats, type NatsCluster } from './natsServers';

interface Opened {
  store: NatsStore;
  restored: Position | undefined;
  lines: string[];
  written: Position[];
}

describe('JetStream store: joining from an index snapshot (issue 40)', function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  const signal = new Signal();
  before(async () => (nats = await startNats(1)));
  after(async () => nats?.stop());

  async function open(prefix: string, snapshot: NatsStoreOptions['snapshot'] = {}): Promise<Opened> {
    const o = { restored: undefined, lines: [], written: [] } as unknown as Opened;
    const hooks =
      snapshot === false
        ? false
        : { ...snapshot, onRestored: (at: Position) => (o.restored = at), onWritten: ({ at }: { at: Position }) => (o.written.push(at), signal.wake()) };
    o.store = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix, snapshot: hooks, log: (l) => o.lines.push(l) });
    o.store.on('delivery', () => signal.wake());
    o.store.on('forward', () => signal.wake());
    return o;
  }

  /** Attempts the index holds, all deliveries together. */
  function attempts(store: NatsStore): number {
    let n = 0;
    for (const e of store.after(0)) n += e.attempts.length;
    return n;
  }

  /** Answers of an instance reading `prefix`'s streams from the start (no snapshot). */
  async function fromStart(prefix: string): Promise<string> {
    const c = await open(prefix, false);
    const a = await answers(c.store);
    await c.store.close();
    return a;
  }

  /** A store's life: generated traffic with prunes and dropped rejected deliveries, then a verified delivery and attempts; closed cleanly (a snapshot). */
  async function world(prefix: string, seed: number): Promise<Position> {
    const a = await open(prefix);
    const rnd = random(seed);
    await run(a.store, rnd, 160);
    await run(a.store, rnd, 40, true);
    await a.store.add({ channel: 'ci', verification: 'verified', headers: [], targets: [] }, Buffer.from('last'));
    await a.store.close();
    assert.equal(a.written.length, 1, 'the clean close wrote a snapshot');
    return a.written[0]!;
  }

  async function refused(prefix: string, why: RegExp): Promise<void> {
    const b = await open(prefix);
    assert.equal(b.restored, undefined, 'the snapshot is not used');
    const lines = b.lines.filter((l) => l.includes('index snapshot'));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, why);
    const got = await answers(b.store);
    await b.store.close();
    assert.equal(got, await fromStart(prefix));
  }

  it('answers every query as an instance that read the streams from the start', async () => {
    const at = await world('J1', 1);
    const b = await open('J1');
    assert.deepEqual(b.restored, at);
    assert.deepEqual(b.lines, []);
    const got = await answers(b.store);
    await b.store.close();
    assert.equal(got, await fromStart('J1'));
    assert.ok(JSON.parse(got).rows.length > 20, 'the world holds deliveries');
  });

  it('writes one every N deliveries, at the instance whose publish reached a multiple of N', async () => {
    const a = await open('J2', { every: 5 });
    await run(a.store, random(2), 40, true);
    const last = a.store.lastSeq;
    await signal.until(() => a.written.some((p) => p.deliveries >= last - (last % 5)), 'a snapshot at the last multiple of 5');
    const b = await open('J2');
    assert.ok(b.restored && b.restored.deliveries >= last - (last % 5));
    const got = await answers(b.store);
    await b.store.close();
    await a.store.close();
    assert.equal(got, await fromStart('J2'));
  });

  it('indexes deliveries and attempts arriving while it joins once', async () => {
    await world('J3', 3);
    const w = await open('J3', false);
    const traffic = run(w.store, random(33), 120, true);
    const b = await open('J3');
    assert.ok(b.restored);
    await traffic;
    const want = { seq: w.store.lastSeq, attempts: attempts(w.store) };
    await signal.until(() => b.store.lastSeq >= want.seq && attempts(b.store) >= want.attempts, 'the joiner caught up');
    const got = await answers(b.store);
    await Promise.all([b.store.close(), w.store.close()]);
    assert.equal(got, await fromStart('J3'));
  });

  it('does not trust a snapshot of a stream created again', async () => {
    await world('J4', 4);
    const nc = await connectNats({ servers: nats.urls });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete('J4_DELIVERIES');
    await jsm.streams.delete('J4_ATTEMPTS');
    await nc.close();
    const again = await open('J4', false);
    await run(again.store, random(4), 200);
    await again.store.close();
    await refused('J4', /taken of jetstream:.*J4_DELIVERIES@/);
  });

  it('does not trust a snapshot of a purged stream', async () => {
    await world('J5', 5);
    const nc = await connectNats({ servers: nats.urls });
    await (await jetstreamManager(nc)).streams.purge('J5_DELIVERIES');
    await nc.close();
    const more = await open('J5', false);
    await run(more.store, random(55), 30, true);
    await more.store.close();
    await refused('J5', /J5_DELIVERIES starts at seq \d+, the snapshot holds deliveries from seq \d+ on/);
  });

  it('--snapshot-every 0 writes none; without it a clean stop writes one', async () => {
    const nc = await connectNats({ servers: nats.urls });
    const os = await new Objm(nc).create(snapshotBucket('J8'));
    for (const snapshot of [false, undefined] as const) {
      const { store } = await openNatsStore({ servers: nats.urls, prefix: 'J8' }, snapshot === false ? { snapshot } : {}, () => undefined);
      await store.add({ channel: 'ci', verification: 'verified', headers: [], targets: [] }, Buffer.from('x'));
      await store.close();
      const info = await os.info(SNAPSHOT_OBJECT);
      assert.equal(info !== null, snapshot === undefined, `with snapshot ${String(snapshot)}`);
    }
    await nc.close();
  });

  for (const [prefix, what, change, why] of [
    ['J6', 'a damaged object', (b: Uint8Array) => (b[b.length >> 1] ^= 0xff), /fails its checksum/],
    ['J7', 'another format', undefined, /format 0, not 1/],
  ] as const) {
    it(`does not trust ${what}`, async () => {
      await world(prefix, 6);
      const nc = await connectNats({ servers: nats.urls });
      const os = await new Objm(nc).open(snapshotBucket(prefix));
      const info = (await os.info(SNAPSHOT_OBJECT))!;
      const bytes = (await os.getBlob(SNAPSHOT_OBJECT))!;
      const head = JSON.parse(info.metadata!.head!) as { format: number };
      if (change) change(bytes);
      else head.format = 0;
      await os.putBlob({ name: SNAPSHOT_OBJECT, metadata: { head: JSON.stringify(head) } }, bytes);
      await nc.close();
      await refused(prefix, why);
    });
  }
});
