// Retention on the JetStream store (issue 20 item 4 there): `--keep` counts accepted deliveries
// only and rejected (401) ones have their own `--keep-rejected`, as on the file journal. A stream
// limit (max_msgs) counted both, so a flood of unsigned posts pushed accepted deliveries out of
// the stream. Real nats-server.
import { strict as assert } from 'node:assert';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats } from '../../../relay/server/nats/connect';
import { NatsStore } from '../../../relay/server/nats/natsStore';
import { startNats, type NatsCluster } from './natsServers';

const delivery = (verification: 'verified' | 'rejected') => ({
  channel: 'default',
  verification,
  ...(verification === 'rejected' ? { reason: 'bad signature' } : {}),
  headers: [['X-Service-Event', 'push']] as [string, string][],
  targets: verification === 'rejected' ? [] : ['http://127.0.0.1:9/app'],
});

describe('JetStream store retention: accepted and rejected apart (real nats-server)', function () {
  this.timeout(60_000);
  let nats: NatsCluster;
  before(async () => (nats = await startNats(1)));
  after(async () => nats?.stop());

  it('a flood of rejected deliveries never pushes an accepted one out; each kind keeps its newest N', async () => {
    const store = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'RET', retention: { maxCount: 3, maxRejected: 2 } });
    try {
      for (let i = 1; i <= 3; i++) await store.add(delivery('verified'), Buffer.from(`ok ${i}`));
      for (let i = 1; i <= 10; i++) await store.add(delivery('rejected'), Buffer.from(`bad ${i}`));
      await store.add(delivery('verified'), Buffer.from('ok 4'));
      await store.applyRetention();
      const kept = await Promise.all(store.list({}).map(async (s) => `${s.verification} ${(await store.read(s.seq))?.body.toString()}`));
      assert.deepEqual(kept.sort(), ['rejected bad 10', 'rejected bad 9', 'verified ok 2', 'verified ok 3', 'verified ok 4']);
      // What the stream itself holds: the same five, read by another client.
      const nc = await connect({ servers: nats.urls.split(',') });
      const info = await (await jetstreamManager(nc)).streams.info('RET_DELIVERIES');
      await nc.close();
      assert.equal(info.state.messages, 5);
    } finally {
      await store.close();
    }
  });
});
