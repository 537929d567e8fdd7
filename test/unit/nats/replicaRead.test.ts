// A body read from a replica whose copy of the stream differs (issue 21): after kill -9 and
// restart under load, the relays logged replicas answering a seq with another message, and a
// subscriber was sent other deliveries' bodies. read() checks the answer against the index and
// takes the stream leader's copy. Real nats-server; the "replica" is the direct get made to
// answer seq 2 with seq 1's message.
import { strict as assert } from 'node:assert';
import { connectNats } from '../../../relay/server/nats/connect';
import type { MessageReaders } from '../../../relay/server/nats/hedged';
import { NatsStore } from '../../../relay/server/nats/natsStore';
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
});
