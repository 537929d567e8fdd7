// The JetStream store tells failures apart by their API error codes (relay/server/nats/apiErrors.ts),
// on a real nats-server: a delivery gone from the stream reads as absent (direct get 404, then the
// leader's 10037), and a channel name another instance created first is refused as existing (10071).
// A fresh server's missing streams (10059) are created by every NatsStore.open in these tests.
import { strict as assert } from 'node:assert';
import { connectNats } from '../../../relay/server/nats/connect';
import { NatsStore } from '../../../relay/server/nats/natsStore';
import { shareChannels } from '../../../relay/server/nats/channelKv';
import { ChannelError, ChannelRegistry } from '../../../relay/server/channels/channelRegistry';
import { tempDir } from '../relay/support/helpers';
import { startNats, type NatsCluster } from './natsServers';

const meta = { channel: 'default', verification: 'verified' as const, headers: [['X-Service-Delivery', 'e-1']] as [string, string][], targets: [] };

describe('JetStream errors by their API codes (nats-server)', function () {
  this.timeout(60_000);
  let nats: NatsCluster;
  const stores: NatsStore[] = [];
  const stops: (() => void)[] = [];
  const open = async (prefix: string) => {
    const s = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix });
    stores.push(s);
    return s;
  };
  before(async () => (nats = await startNats(1)));
  after(async () => {
    for (const stop of stops) stop();
    for (const s of stores) await s.close();
    await nats?.stop();
  });

  it('a delivery removed from the stream, or never written, reads as absent', async () => {
    const store = await open('ER');
    const { seq } = await store.add(meta, Buffer.from('{"gone":true}'));
    assert.ok(await store.read(seq), 'readable while it is in the stream');
    await store.manager.streams.deleteMessage(store.deliveryStream, seq);
    assert.equal(await store.read(seq), undefined);
    assert.equal(await store.read(seq + 1000), undefined);
  });

  it('a channel name another instance created first is refused as existing, not as a store failure', async () => {
    const storeA = await open('EC');
    const storeB = await open('EC');
    const a = ChannelRegistry.open(tempDir());
    const b = ChannelRegistry.open(tempDir());
    stops.push(await shareChannels(a, storeA.client, { prefix: 'EC', replicas: 1 }));
    const stopB = await shareChannels(b, storeB.client, { prefix: 'EC', replicas: 1 });
    stopB(); // b no longer hears of a's channels: only the shared store knows the name is taken
    await a.create('taken', []);
    await assert.rejects(b.create('taken', []), (err: unknown) => err instanceof ChannelError && err.kind === 'exists');
  });
});
