// Issue 21, item 2: on a JetStream store, a forward whose attempt cannot be recorded (the attempts
// stream is gone: every record fails) is handed out again within seconds, as often as it takes,
// and not on the target's retry schedule (here an hour); once recording works again the forward is
// recorded as delivered. Before, the claim was left to expire and each such hand-out used up one of
// the consumer's max_deliver (the schedule's length), after which the forward was stranded.
import { strict as assert } from 'node:assert';
import { Agent } from 'undici';
import { connectNats } from '../../../relay/server/nats/connect';
import { NatsStore } from '../../../relay/server/nats/natsStore';
import { SharedForwarding } from '../../../relay/server/nats/sharedForwarding';
import { createHash } from 'node:crypto';
import { AckPolicy, DeliverPolicy, StorageType } from '@nats-io/jetstream';
import { startTarget, type TargetApp } from '../relay/support/helpers';
import { until } from '../../support/until';
import { startNats, type NatsCluster } from './natsServers';

const HOUR = 3_600_000;

describe('shared forwarding on JetStream: a failed bookkeeping write strands no forward', function () {
  this.timeout(60_000);
  let nats: NatsCluster;
  let store: NatsStore | undefined;
  let forwarding: SharedForwarding | undefined;
  let app: TargetApp | undefined;
  const agent = new Agent();
  before(async () => (nats = await startNats(1)));
  after(async () => {
    forwarding?.stop();
    await store?.close();
    await app?.close();
    await agent.close();
    await nats?.stop();
  });

  it('hands the forward out again within seconds, past the length of the schedule, until its attempt is recorded', async () => {
    app = await startTarget();
    store = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'RF', publishBudgetMs: 300 });
    const schedule = [0, HOUR, HOUR, HOUR];
    forwarding = new SharedForwarding(store, { targets: [app.url], schedule, timeoutMs: 2000, perTarget: 4, dispatcher: agent });
    await forwarding.start();
    const attempts = await store.manager.streams.info('RF_ATTEMPTS');
    await store.manager.streams.delete('RF_ATTEMPTS'); // from now on no attempt can be recorded

    const { seq } = await store.add(
      { channel: 'default', verification: 'verified', headers: [['X-Service-Delivery', 'rf-1']], targets: [app.url] },
      Buffer.from('{"id":"rf-1"}'),
    );
    await app.waitFor(schedule.length + 1);
    assert.equal(store.forwardState(seq, app.url)?.attempts, 0, 'nothing recorded while the attempts stream is gone');

    await store.manager.streams.add({ ...attempts.config, storage: StorageType.File });
    const state = await until(
      () => (store!.forwardState(seq, app!.url)?.status === 'ok' ? store!.forwardState(seq, app!.url) : undefined),
      (wake) => (store!.on('forward', wake), () => store!.off('forward', wake)),
    );
    assert.deepEqual([state.status, state.lastStatus], ['ok', 200]);
    assert.ok(
      app.received.length > schedule.length,
      `posted again after each failed record (${app.received.length} posts), never left for the hour-long schedule`,
    );
  });

  it('lifts the hand-out cap of a forward consumer made by an earlier version', async () => {
    const older = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'OLD' });
    const target = 'http://127.0.0.1:9/old';
    const name = `fwd-${createHash('sha256').update(target).digest('hex').slice(0, 20)}`;
    await older.manager.consumers.add('OLD_DELIVERIES', {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
      max_deliver: 4,
      ack_wait: 15e9,
    });
    const f = new SharedForwarding(older, { targets: [target], schedule: [0, HOUR], timeoutMs: 1000, perTarget: 2, dispatcher: agent });
    try {
      await f.start();
      const info = await older.manager.consumers.info('OLD_DELIVERIES', name);
      assert.equal(info.config.max_deliver, -1);
    } finally {
      f.stop();
      await older.close();
    }
  });
});
