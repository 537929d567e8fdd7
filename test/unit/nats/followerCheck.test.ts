// A new consumer's first messages are checked against the stream leader's copy
// (relay/server/nats/streamFollower.ts, issue 21): in a chaos run a consumer made during a
// fail-over handed over, for its first seqs, messages that the leader holds other messages at, and
// the index sent a subscriber those instead of the acknowledged deliveries. Real nats-server; the
// consumer's copy that differs is played by a wrapper that changes one message it hands over.
import { strict as assert } from 'node:assert';
import { connect, headers, StorageType, type Consumer, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { StreamFollower, type FollowedMessage } from '../../../relay/server/nats/streamFollower';
import { startNats, type NatsCluster } from './natsServers';

const STREAM = 'CHECK_TEST';

describe('stream follower: a new consumer’s copy that differs from the leader’s (real nats-server)', function () {
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

  it('indexes the leader’s message at a seq where the consumer handed over another, says so, and goes on in order', async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: STREAM, subjects: ['check.>'], storage: StorageType.Memory });
    const js = nc.jetstream();
    for (let i = 1; i <= 6; i++) {
      const h = headers();
      h.set('Sh-Test', `h${i}`);
      await js.publish('check.x', JSON.stringify({ i }), { headers: h, msgID: `id-${i}` });
    }
    // The consumer's server holds, at seq 3, a message that was never committed there.
    const phantom = (m: FollowedMessage): FollowedMessage => ({
      seq: m.seq,
      headers: { get: (name) => (name === 'Nats-Msg-Id' ? 'phantom' : name === 'Sh-Test' ? 'phantom' : (m.headers?.get(name) ?? '')) },
      json: m.json,
    });
    const diverged = new Proxy(js, {
      get: (t, k) =>
        k === 'consumers'
          ? {
              get: async (stream: string, name: string): Promise<Consumer> => {
                const real = await t.consumers.get(stream, name);
                return new Proxy(real, {
                  get: (c, ck) =>
                    ck === 'fetch'
                      ? async (o: Parameters<Consumer['fetch']>[0]) => {
                          const it = await c.fetch(o);
                          return (async function* () {
                            for await (const m of it) yield m.seq === 3 ? phantom(m) : m;
                          })();
                        }
                      : c[ck as keyof Consumer],
                });
              },
            }
          : t[k as keyof JetStreamClient],
    });
    const quick = (await nc.jetstreamManager({ timeout: 1000 })) as JetStreamManager;
    const lines: string[] = [];
    const got: FollowedMessage[] = [];
    let arrived = () => undefined as void;
    const all = new Promise<void>((r) => (arrived = () => got.at(-1)?.seq === 6 && r()));
    const f = new StreamFollower(
      STREAM,
      true,
      {
        js: diverged,
        jsm,
        readers: { direct: (s, seq) => quick.streams.getMessage(s, { seq }), leader: (s, seq) => quick.streams.getMessage(s, { seq }) },
        absent: () => Promise.resolve(false),
        log: (l) => lines.push(l),
      },
      (m) => (got.push(m), arrived()),
      6,
    );
    void f.run();
    try {
      await all;
    } finally {
      f.stop();
    }
    assert.deepEqual(
      got.map((m) => [m.seq, m.headers?.get('Sh-Test')]),
      [
        [1, 'h1'],
        [2, 'h2'],
        [3, 'h3'],
        [4, 'h4'],
        [5, 'h5'],
        [6, 'h6'],
      ],
    );
    assert.ok(
      lines.some((l) => /another message at seq 3 than the stream's leader holds/.test(l)),
      lines.join('\n'),
    );
  });
});
