// A stream follower that cannot get a consumer (issue 21): after a hung nats-server resumed,
// nats-server 2.9 answered 503 to every consumer create for 15 s and more while the stream served
// reads and writes, and the relay's index (so every subscriber of the instance) stood still. The
// follower then reads the seqs known to exist by direct get, in order, skipping a deleted one.
// Real nats-server; only the consumer create is refused, as the cluster refused it.
//
// And a new consumer's first messages are checked against the stream leader's copy (issue 21): in
// a chaos run a consumer made during a fail-over handed over, for its first seqs, messages that the
// leader holds other messages at, and the index sent a subscriber those instead of the
// acknowledged deliveries. The consumer's copy that differs is played by a wrapper that changes one
// message it hands over.
import { strict as assert } from 'node:assert';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType, type Consumer, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { StreamFollower, type FollowedMessage } from '../../../relay/server/nats/streamFollower';
import { startNats, type NatsCluster } from './natsServers';

const STREAM = 'FILL_TEST';
const CHECK_STREAM = 'CHECK_TEST';

/** Messages {"i":1}…{"i":n} on `subject`, each with header Sh-Test h<i> and message id id-<i>. */
/** Runs the follower until `done`, then stops it. */
async function runUntil(f: StreamFollower, done: Promise<void>): Promise<void> {
  void f.run();
  try {
    await done;
  } finally {
    f.stop();
  }
}

async function publishNumbered(js: JetStreamClient, subject: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    const h = headers();
    h.set('Sh-Test', `h${i}`);
    await js.publish(subject, JSON.stringify({ i }), { headers: h, msgID: `id-${i}` });
  }
}

describe('stream follower: reads by seq while no consumer can be made; checks a new consumer (real nats-server)', function () {
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
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: ['fill.>'], storage: StorageType.Memory, allow_direct: true });
    const js = jetstream(nc);
    await publishNumbered(js, 'fill.x', 10);
    await jsm.streams.deleteMessage(STREAM, 5);
    const quick = await jetstreamManager(nc, { timeout: 1000 });
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
            (m) => m === null,
            () => false,
          ),
      },
      (m) => (got.push(m), arrived()),
      10,
    );
    await runUntil(f, all);
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

  it('indexes the leader’s message at a seq where the consumer handed over another, says so, and goes on in order', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: CHECK_STREAM, subjects: ['check.>'], storage: StorageType.Memory });
    const js = jetstream(nc);
    await publishNumbered(js, 'check.x', 6);
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
                          // The fetch as it is (its end, its notifications), handing over seq 3 changed.
                          const it = await c.fetch(o);
                          const changed = async function* () {
                            for await (const m of it) yield m.seq === 3 ? phantom(m) : m;
                          };
                          return new Proxy(it, {
                            get: (f, fk) => {
                              const v: unknown = fk === Symbol.asyncIterator ? changed : f[fk as keyof typeof f];
                              return typeof v === 'function' && v !== changed ? (v as () => unknown).bind(f) : v;
                            },
                          });
                        }
                      : c[ck as keyof Consumer],
                });
              },
            }
          : t[k as keyof JetStreamClient],
    });
    const quick = await jetstreamManager(nc, { timeout: 1000 });
    const lines: string[] = [];
    const got: FollowedMessage[] = [];
    let arrived = () => undefined as void;
    const all = new Promise<void>((r) => (arrived = () => got.at(-1)?.seq === 6 && r()));
    const f = new StreamFollower(
      CHECK_STREAM,
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
    await runUntil(f, all);
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
