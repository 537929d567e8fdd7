// Issue 21, item 3: while nothing answers for the deliveries stream's subjects (as during a leader
// election, when nats-server answers "no responders" at once), ingress holds the delivery and
// publishes it again instead of failing at once; past its budget it fails with
// StoreUnavailableError (503 with Retry-After), never hangs. A real nats-server; the stream's
// absence stands in for the election.
import { strict as assert } from 'node:assert';
import { StorageType } from '@nats-io/jetstream';
import { noResponders } from '../../../relay/server/nats/apiErrors';
import { connectNats } from '../../../relay/server/nats/connect';
import { NatsStore, StoreUnavailableError } from '../../../relay/server/nats/natsStore';
import { startNats, type NatsCluster } from './natsServers';

const meta = { channel: 'default', verification: 'verified' as const, headers: [['X-Service-Delivery', 'pr-1']] as [string, string][], targets: [] };

describe('JetStream ingress while the stream has no leader', function () {
  this.timeout(60_000);
  let nats: NatsCluster;
  let store: NatsStore | undefined;
  before(async () => (nats = await startNats(1)));
  after(async () => {
    await store?.close();
    await nats?.stop();
  });

  it('publishes again until the stream answers, and gives up with StoreUnavailableError after its budget', async () => {
    store = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'PR', publishBudgetMs: 20_000 });
    const info = await store.manager.streams.info('PR_DELIVERIES');
    await store.manager.streams.delete('PR_DELIVERIES'); // "no responders" from now on
    let settled = false;
    const held = store.add(meta, Buffer.from('{"id":"pr-1"}')).finally(() => (settled = true));
    // The add is still waiting once a publish of our own has been refused for want of a stream.
    await assert.rejects(store.client.publish('pr.deliveries.default', 'probe', { timeout: 1000 }), noResponders); // 503
    assert.equal(settled, false, 'the delivery is held, not refused at once');
    await store.manager.streams.add({ ...info.config, storage: StorageType.File });
    const stored = await held;
    assert.ok(stored.seq >= 1, 'stored once the stream answers');

    // Attempt records waiting for their stream do not take the deliveries' budget.
    const apart = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'PA', publishBudgetMs: 60_000, maxWaitingPublishes: 2 });
    try {
      const first = await apart.add(meta, Buffer.from('{}'));
      const attemptsInfo = await apart.manager.streams.info('PA_ATTEMPTS');
      const deliveriesInfo = await apart.manager.streams.info('PA_DELIVERIES');
      await apart.manager.streams.delete('PA_ATTEMPTS');
      await apart.manager.streams.delete('PA_DELIVERIES');
      const attempt = { seq: first.seq, attempt: { at: new Date().toISOString(), target: 'http://127.0.0.1:9/', ok: true, status: 200, durationMs: 1 } };
      const records = [apart.log.recordAttempt(attempt), apart.log.recordAttempt(attempt)];
      const added = apart.add(meta, Buffer.from('{"held":true}'));
      await assert.rejects(apart.log.recordAttempt(attempt), /2 others wait/, 'a third attempt record is over its budget');
      await apart.manager.streams.add({ ...deliveriesInfo.config, storage: StorageType.File });
      assert.ok((await added).seq >= 1, 'the delivery waited for its stream beside two waiting attempt records');
      await apart.manager.streams.add({ ...attemptsInfo.config, storage: StorageType.File });
      await Promise.all(records);
    } finally {
      await apart.close();
    }

    const short = await NatsStore.open(await connectNats({ servers: nats.urls }), { prefix: 'PS', publishBudgetMs: 500 });
    try {
      await short.manager.streams.delete('PS_DELIVERIES');
      await assert.rejects(short.add(meta, Buffer.from('{}')), StoreUnavailableError);
    } finally {
      await short.close();
    }
  });
});
