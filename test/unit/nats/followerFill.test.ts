// A stream follower that cannot get a consumer (issue 21): after a hung nats-server resumed,
// nats-server 2.9 answered 503 to every consumer create for 15 s and more while the stream served
// reads and writes, and the relay's index (so every subscriber of the instance) stood still. The
// follower then reads the seqs known to exist by direct get, in order, skipping a deleted one.
// Real nats-server; only the consumer create is refused, as the cluster refused it.
import { strict as assert } from 'node:assert';
import { connect, headers, StorageType, type JetStreamManager, type NatsConnection } from 'nats';
import { StreamFollower, type FollowedMessage } from '../../../relay/server/nats/streamFollower';
import { startNats, type NatsCluster } from './natsServers';

const STREAM = 'FILL_TEST';

describe('stream follower: reads by seq while no consumer can be made (real nats-server)', function () {
  this.timeout(30_000);
  let nats: NatsCluster;
  let nc: NatsConnection;

  before(async () => {
    nats = await startNats(1);
    nc = await connect({ servers: nats.urls.split(',') });
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('hands over every message after the last one in seq order, and skips a seq the stream does not hold', async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: STREAM, subjects: ['fill.>'], storage: StorageType.Memory, allow_direct: true });
    const js = nc.jetstream();
    for (let i = 1; i <= 10; i++) {
      const h = headers();
      h.set('Sh-Test', `h${i}`);
      await js.publish('fill.x', JSON.stringify({ i }), { headers: h });
    }
    await jsm.streams.deleteMessage(STREAM, 5);
    const quick = (await nc.jetstreamManager({ timeout: 1000 })) as JetStreamManager & {
      direct: { getMessage(s: string, q: { seq: number }): Promise<never> };
    };
    // The cluster refuses every consumer create, as nats-server 2.9 did after a hung server resumed.
    const refusing = new Proxy(jsm, {
      get: (t, k) =>
        k === 'consumers'
          ? { ...t.consumers, add: () => Promise.reject(new Error('503')), delete: () => Promise.resolve(true) }
          : t[k as keyof JetStreamManager],
    });
    const got: FollowedMessage[] = [];
    let arrived = () => undefined as void;
    const all = new Promise<void>((r) => (arrived = () => got.at(-1)?.seq === 10 && r()));
    const f = new StreamFollower(
      STREAM,
      false,
      {
        js,
        jsm: refusing,
        readers: { direct: (s, seq) => quick.direct.getMessage(s, { seq }), leader: (s, seq) => quick.streams.getMessage(s, { seq }) },
        absent: async (s, seq) =>
          jsm.streams.getMessage(s, { seq }).then(
            () => false,
            (err: Error) => /no message found|not found/i.test(err.message),
          ),
      },
      (m) => (got.push(m), arrived()),
      10,
    );
    void f.run();
    try {
      await all;
    } finally {
      f.stop();
    }
    assert.deepEqual(
      got.map((m) => m.seq),
      [1, 2, 3, 4, 6, 7, 8, 9, 10],
    );
    assert.deepEqual(
      got.map((m) => m.json<{ i: number }>().i),
      [1, 2, 3, 4, 6, 7, 8, 9, 10],
    );
    assert.deepEqual(
      got.map((m) => m.headers?.get('Sh-Test')),
      ['h1', 'h2', 'h3', 'h4', 'h6', 'h7', 'h8', 'h9', 'h10'],
    );
    assert.equal(got[0]!.headers?.get('Nats-Msg-Size'), String(JSON.stringify({ i: 1 }).length));
  });
});
