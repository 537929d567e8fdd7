// Pins the JetStream seam the seams model found (test/unit/seams/): a prune that drops nothing
// (POST /api/prune { keep } with no more than `keep` accepted deliveries held, before the store's
// first sync of the stream's first seq) must keep every delivery readable. nats-server 2.9 answers
// a purge up to seq 1 by purging the whole stream.
import { strict as assert } from 'node:assert';
import { post, relayProcesses, spawnRelay, tempDir } from '../relay/support/helpers';
import { call, childEnv } from '../relay/support/publicHelpers';
import { startNats, type NatsCluster } from './natsServers';

const ADMIN = 'prune-nothing-admin-token-0123456789';

describe('JetStream: a prune that drops nothing (relay process, real nats-server)', function () {
  this.timeout(60_000);
  const procs = relayProcesses();
  let nats: NatsCluster;
  before(async () => (nats = await startNats(1)));
  after(async () => nats?.stop());

  it('keeps the deliveries it was not asked to drop readable', async () => {
    const relay = await spawnRelay(['--store', nats.urls, '--data', tempDir()], childEnv({ SERVICE_HOOKS_RELAY_TOKEN: ADMIN }));
    procs.push(relay);
    const first = await post(`${relay.url}/hooks/alice`, '{"n":1}');
    assert.equal(first.status, 200);
    const seq = (first.json as { seq: number }).seq;
    const pruned = await call('POST', `${relay.url}/api/prune`, ADMIN, { keep: 1 });
    assert.deepEqual(pruned.json, { removed: 0, remaining: 1 });
    assert.equal((await post(`${relay.url}/hooks/alice`, '{"n":2}')).status, 200);
    const detail = await call('GET', `${relay.url}/api/deliveries/${seq}`, ADMIN);
    assert.equal(detail.status, 200, `delivery ${seq} after a prune that removed nothing: ${JSON.stringify(detail.json)}`);
  });
});
