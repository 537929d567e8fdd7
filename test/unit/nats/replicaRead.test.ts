// A body read from a replica whose copy of the stream differs (issue 21): after kill -9 and
// restart under load, the relays logged replicas answering a seq with another message, and a
// subscriber was sent other deliveries' bodies. read() checks the answer against the index and
// takes the stream leader's copy. Real nats-server; the "replica" is the direct get made to
// answer seq 2 with seq 1's message.
import { strict as assert } from 'node:assert';
import { connectNats } from '../../../relay/server/nats/connect';
import type { MessageReaders } from '../../../relay/server/nats/hedged';
import { NatsStore, StoreUnavailableError } from '../../../relay/server/nats/natsStore';
import { startNats, type NatsCluster } from './natsServers';

const meta = () => ({ channel: 'default', verification: 'verified' as const, headers: [['X-Service-Event', 'push']] as [string, string][], targets: [] });

describe('JetStream store: a replica that answers with another message (real nats-server)', function () {
  this.timeout(30_000);
  let nats: NatsCluster;
  before(async () => (nats = await startNats(1)));
  after(async () => nats?.stop());

  it("reads the stream leader's copy when the answer is not the delivery the index holds, and says so", async () => {
    const lines: string[] = [];
    const store = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'RR', log: (l) => lines.push(l) });
    try {
      await store.add(meta(), Buffer.from('one'));
      await store.add(meta(), Buffer.from('second')); // another length: told apart even within one ms
      const handles = store.log as unknown as { readers: MessageReaders }; // the NatsLog under the store
      const real = handles.readers;
      handles.readers = { direct: (stream, seq) => real.direct(stream, seq === 2 ? 1 : seq), leader: real.leader };
      assert.equal((await store.read(1))?.body.toString(), 'one');
      assert.equal((await store.read(2))?.body.toString(), 'second');
      assert.ok(
        lines.some((l) => /replica answered seq 2 .* another message/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await store.close();
    }
  });

  it('a leader that also answers with another message is asked again (503 meanwhile) before its word is taken', async () => {
    const lines: string[] = [];
    const store = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'RL', log: (l) => lines.push(l) });
    try {
      await store.add(meta(), Buffer.from('one'));
      await store.add(meta(), Buffer.from('second'));
      const handles = store.log as unknown as { readers: MessageReaders };
      const real = handles.readers;
      // A server that still answers as the leader it was: seq 2 is seq 1's message, for two reads.
      let stale = 2;
      const wrong = (stream: string, seq: number) => real.leader(stream, seq === 2 && stale > 0 ? 1 : seq);
      handles.readers = { direct: wrong, leader: (stream, seq) => wrong(stream, seq).finally(() => seq === 2 && stale--) };
      await assert.rejects(store.read(2), StoreUnavailableError);
      await assert.rejects(store.read(2), StoreUnavailableError);
      assert.equal((await store.read(2))?.body.toString(), 'second', 'the copies agree again: the indexed delivery');
      // A leader that keeps another message: after a few reads its word is taken, and said.
      handles.readers = {
        direct: (stream, seq) => real.leader(stream, seq === 2 ? 1 : seq),
        leader: (stream, seq) => real.leader(stream, seq === 2 ? 1 : seq),
      };
      let reads = 0;
      for (;;) {
        reads++;
        const r = await store.read(2).catch((err: unknown) => (err instanceof StoreUnavailableError ? undefined : Promise.reject(err)));
        if (r) {
          assert.equal(r.body.toString(), 'one');
          break;
        }
      }
      assert.ok(reads > 1 && reads < 10, `taken after ${reads} reads`);
      assert.ok(
        lines.some((l) => /leader keeps another message at seq 2/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await store.close();
    }
  });
});
