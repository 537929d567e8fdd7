// Ingress while the deliveries stream's leader hangs (issue 21, the paused-leader window): the
// hung server keeps its interest in the stream's subjects, so a publish went to it and waited out
// its whole acknowledgement time-out although the other two servers had elected a new leader. The
// publish is now sent again beside itself every second (same message id), and the copy sent after
// the election is stored once. Three real nats-server; the leader is stopped with SIGSTOP.
import { strict as assert } from 'node:assert';
import { connectNats } from '../../../relay/server/nats/connect';
import { NatsStore } from '../../../relay/server/nats/natsStore';
import { startNats, waitForStreamQuorum, type NatsCluster } from './natsServers';
import { streamLeader } from './roles';

const STREAM = 'PL_DELIVERIES';
const meta = { channel: 'default', verification: 'verified' as const, headers: [['X-Service-Delivery', 'pl-1']] as [string, string][], targets: [] };

describe('JetStream ingress while the stream leader hangs (3 nats-server, SIGSTOP)', function () {
  // An election takes 4–9 s in nats-server 2.9; the acknowledgement time-out here is 5 minutes,
  // so only a publish sent again after the election can end this test in time.
  this.timeout(60_000);
  let nats: NatsCluster;
  const stores: NatsStore[] = [];

  before(async () => (nats = await startNats(3, { monitor: true })));
  after(async () => {
    for (const n of nats?.nodes ?? []) n.process?.kill('SIGCONT');
    for (const s of stores) await s.close();
    await nats?.stop();
  });

  it('a delivery is acknowledged by the new leader, stored once, while the old one still hangs', async () => {
    const open = async (servers: string) => {
      const s = await NatsStore.open(await connectNats({ servers }), { prefix: 'PL', replicas: 3, ackTimeoutMs: 300_000, publishBudgetMs: 300_000 });
      stores.push(s);
      return s;
    };
    await open(nats.urls);
    await waitForStreamQuorum(
      nats.nodes.map((n) => n.url),
      STREAM,
      3,
    );
    const leader = await streamLeader(nats, STREAM);
    assert.ok(leader?.process, 'the stream has a leader');
    // Ingress on a server that stays up, as a relay connected elsewhere than the hung machine.
    const store = await open(
      nats.nodes
        .filter((n) => n !== leader)
        .map((n) => n.url)
        .join(','),
    );
    const before = (await store.manager.streams.info(STREAM)).state.last_seq;
    leader.process.kill('SIGSTOP');
    const stored = await store.add(meta, Buffer.from('{"id":"pl-1"}'));
    assert.ok(stored.seq > before);
    leader.process.kill('SIGCONT');
    // The resumed server answers as the leader it was until it hears of the new one: ask once the
    // stream's replicas are current again.
    await waitForStreamQuorum(
      nats.nodes.map((n) => n.url),
      STREAM,
      3,
    );
    const info = await store.manager.streams.info(STREAM);
    assert.equal(info.state.last_seq - before, 1, 'the copies sent again are one message');
    const m = await store.manager.streams.getMessage(STREAM, { seq: stored.seq });
    assert.equal(Buffer.from(m?.data ?? []).toString(), '{"id":"pl-1"}');
  });
});
