// When a seq may be passed over for good (relay/server/nats/absent.ts), on a real nats-server: a
// deleted or purged message is gone, but a seq the answering leader has not written (yet) is not,
// though STREAM.MSG.GET answers it with the same "no message found". Taken as gone, that answer
// from a leader still applying what was committed, or from a resumed paused one, made the index
// skip deliveries the stream held: `service-hooks forward` never got them (issue 21).
import { strict as assert } from 'node:assert';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { goneFromStream, type StreamLookups } from '../../../relay/server/nats/absent';
import { startNats, type NatsCluster } from './natsServers';

const STREAM = 'GONE_TEST';

describe('a seq passed over for good only on the stream leader’s word (real nats-server)', function () {
  this.timeout(30_000);
  let nats: NatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let look: StreamLookups;

  before(async () => {
    nats = await startNats(1);
    nc = await connect({ servers: nats.urls.split(',') });
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: STREAM, subjects: ['gone.>'], storage: StorageType.Memory });
    const js = jetstream(nc);
    for (let i = 1; i <= 10; i++) await js.publish('gone.x', JSON.stringify({ i }));
    await jsm.streams.deleteMessage(STREAM, 5);
    await jsm.streams.purge(STREAM, { seq: 3 }); // removes 1 and 2
    look = { message: (seq) => jsm.streams.getMessage(STREAM, { seq }), state: async () => (await jsm.streams.info(STREAM)).state };
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('a purged seq and a deleted one are gone; a held one and one past the last are not', async () => {
    assert.equal(await goneFromStream(look, 1), 'purged');
    assert.equal(await goneFromStream(look, 5), 'deleted');
    assert.equal(await goneFromStream(look, 6), undefined);
    // "no message found" from the leader, but the stream never had it: not yet, not gone.
    assert.equal(await jsm.streams.getMessage(STREAM, { seq: 11 }), null);
    assert.equal(await goneFromStream(look, 11), undefined);
    assert.equal(await goneFromStream(look, 1000), undefined);
  });

  it('a leader that has not applied the message yet (its state ends before it) is not believed', async () => {
    // The answers a leader gives while it is still applying seqs 11..12: "no message found", and
    // a state whose last seq is 10. The stream (as its other servers hold it) has them.
    const behind: StreamLookups = { message: (seq) => jsm.streams.getMessage(STREAM, { seq: seq + 100 }), state: look.state };
    assert.equal(await goneFromStream(behind, 11), undefined);
    // Asked again after its state put the seq inside the stream, the message was there: not gone.
    let asked = 0;
    const caughtUp: StreamLookups = { message: (seq) => (asked++ === 0 ? jsm.streams.getMessage(STREAM, { seq: 5 }) : look.message(seq)), state: look.state };
    assert.equal(await goneFromStream(caughtUp, 7), undefined);
    assert.equal(asked, 2);
  });

  it('a failure to ask is "not known", never "gone"', async () => {
    const down: StreamLookups = { message: () => Promise.reject(new Error('TIMEOUT')), state: () => Promise.reject(new Error('TIMEOUT')) };
    assert.equal(await goneFromStream(down, 5), undefined);
    const noState: StreamLookups = { message: look.message, state: () => Promise.reject(new Error('TIMEOUT')) };
    assert.equal(await goneFromStream(noState, 5), undefined);
  });
});
