// The relay's JetStream store against real nats-server processes: one server, and a three-node
// cluster with two relay instances' stores on different nodes.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { connectNats, parseNatsServers, NatsUrlError } from '../../../relay/server/nats/connect';
import { NatsStore, StoreUnavailableError } from '../../../relay/server/nats/natsStore';
import type { StoredDelivery } from '../../../relay/server/base/storeTypes';
import { startNats, waitForStreamQuorum, type NatsCluster } from './natsServers';

const meta = (channel = 'default', targets = ['http://127.0.0.1:9/app']) => ({
  channel,
  verification: 'verified' as const,
  headers: [
    ['X-Service-Event', 'push'],
    ['X-Service-Delivery', 'd-1'],
  ] as [string, string][],
  targets,
});

async function openStore(servers: string, options: Parameters<typeof NatsStore.open>[1] = {}): Promise<NatsStore> {
  return NatsStore.open(await connectNats({ servers }), options);
}

describe('NATS JetStream store', function () {
  this.timeout(60_000);

  describe('parseNatsServers', () => {
    it('takes nats:// and tls:// lists, credentials in the URL, and refuses other schemes', () => {
      assert.deepEqual(parseNatsServers('nats://a:4222, nats://u:p%40ss@b'), { servers: ['a:4222', 'b:4222'], user: 'u', pass: 'p@ss', tls: false });
      assert.equal(parseNatsServers('tls://h:7422').tls, true);
      assert.throws(() => parseNatsServers('http://h:4222'), NatsUrlError);
      assert.throws(() => parseNatsServers(' , '), NatsUrlError);
    });
  });

  describe('one server', () => {
    let nats: NatsCluster;
    before(async () => (nats = await startNats(1)));
    after(async () => nats?.stop());

    it('gives each delivery the stream sequence, keeps the exact bytes, and rebuilds its index on open', async () => {
      const a = await openStore(nats.urls, { prefix: 'T1' });
      const body = Buffer.from('{"a":1}\r\n\u00e9', 'utf8');
      const first = await a.add(meta(), body);
      const second = await a.add(meta('other'), Buffer.from([0, 255, 1]));
      assert.equal(first.summary.seq, 1);
      assert.equal(second.summary.seq, 2);
      assert.equal(first.summary.event, 'push');
      assert.equal(first.summary.deliveryId, 'd-1');
      assert.deepEqual((await a.read(1))?.body, body);
      await a.recordAttempt(
        1,
        { target: 'http://127.0.0.1:9/app', at: new Date().toISOString(), status: 200, ok: true, durationMs: 3 },
        { target: 'http://127.0.0.1:9/app', status: 'ok', lastStatus: 200, attempts: 1 },
      );
      assert.deepEqual(
        a.pending().map((d) => d.summary.seq),
        [2],
      );
      await a.close();

      const b = await openStore(nats.urls, { prefix: 'T1' });
      assert.equal(b.lastSeq, 2);
      assert.deepEqual(
        b.list({}).map((s) => s.seq),
        [2, 1],
      );
      assert.equal(b.get(1)?.summary.forward[0]?.status, 'ok');
      assert.deepEqual(
        b.channels().map((c) => [c.name, c.received, c.forwarded]),
        [
          ['default', 1, 1],
          ['other', 1, 0],
        ],
      );
      const detail = await b.detail(1);
      assert.equal(Buffer.from(detail!.bodyBase64, 'base64').toString('utf8'), body.toString('utf8'));
      assert.equal(detail!.headers['x-service-event'], 'push');
      await b.close();
    });

    it('prunes through the stream and never reuses a seq afterwards', async () => {
      const s = await openStore(nats.urls, { prefix: 'T2' });
      for (let i = 0; i < 5; i++) await s.add(meta(), Buffer.from(String(i)));
      assert.deepEqual(await s.prune({ keep: 2 }), { removed: 3, remaining: 2 });
      assert.equal(await s.read(1), undefined);
      assert.equal((await s.add(meta(), Buffer.from('x'))).summary.seq, 6);
      await s.close();
    });
  });

  describe('three-node cluster, two relay instances', () => {
    let nats: NatsCluster;
    before(async () => (nats = await startNats(3)));
    after(async () => nats?.stop());

    it('a delivery ingested at one instance reaches the other in seq order with the same seq; attempts are shared', async () => {
      const a = await openStore(nats.nodes[0]!.url, { prefix: 'C1', replicas: 3 });
      const b = await openStore(nats.nodes[2]!.url, { prefix: 'C1', replicas: 3 });
      const seen = once(b, 'delivery') as Promise<[StoredDelivery]>;
      const d = await a.add(meta(), Buffer.from('hello'));
      const [atB] = await seen;
      assert.equal(atB.summary.seq, d.summary.seq);
      assert.deepEqual((await b.read(d.summary.seq))?.body, Buffer.from('hello'));
      const forwarded = once(a, 'forward');
      await b.recordAttempt(
        d.summary.seq,
        { target: 'http://127.0.0.1:9/app', at: new Date().toISOString(), ok: false, durationMs: 1, error: 'refused' },
        { target: 'http://127.0.0.1:9/app', status: 'pending', attempts: 1 },
      );
      await forwarded;
      assert.equal(a.get(d.summary.seq)?.attempts.length, 1);
      await a.close();
      await b.close();
    });

    it('without a quorum a delivery is refused (never acknowledged as durable); with it back, accepted again', async function () {
      this.timeout(90_000); // up to eight tries of a 3 s acknowledgement, each after a quorum wait
      const a = await openStore(nats.urls, { prefix: 'C2', replicas: 3, ackTimeoutMs: 3000 });
      await a.add(meta(), Buffer.from('before'));
      await nats.nodes[1]!.kill();
      await nats.nodes[2]!.kill();
      await assert.rejects(a.add(meta(), Buffer.from('no quorum')), StoreUnavailableError);
      await nats.nodes[1]!.start();
      await nats.nodes[2]!.start();
      // Back to quorum, the client may still be reconnecting from a killed node and the stream may
      // still be electing: a publish can time out, which the service sees as a 503 and retries
      // (minutes apart, §8). The relay must accept within a few tries; on a loaded 2-core CI machine
      // three were once not enough, so it gets eight, each after the stream reports its quorum.
      let accepted: StoredDelivery | undefined;
      const refusals: string[] = [];
      for (let i = 0; i < 8 && !accepted; i++) {
        await waitForStreamQuorum(nats.urls.split(','), 'C2_DELIVERIES', 3);
        accepted = await a.add(meta(), Buffer.from('after')).catch((err) => {
          assert.ok(err instanceof StoreUnavailableError, String(err));
          refusals.push(`${new Date().toISOString()} ${(err as Error).message}`);
          return undefined;
        });
      }
      assert.ok(accepted, `accepted once the quorum is back; refused:\n${refusals.join('\n')}`);
      assert.deepEqual((await a.read(accepted.summary.seq))?.body, Buffer.from('after'));
      await a.close();
    });
  });
});
