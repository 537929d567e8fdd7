// One channel-name rule for both stores (issue 20 item 9): names the file journal took ('x.',
// 'a..b') broke the JetStream store (channel creation 500, ingress 503 forever). Both refuse them
// with 400 alike, and both serve a dotted name such as 'a.b'.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, relayProcesses, spawnRelay, tempDir, type RelayProcess } from '../../support/helpers';
import { call, runCli } from '../../support/publicHelpers';
import { startNats, type NatsCluster } from '../../../nats/natsServers';

const ADMIN = 'channel-names-admin-0123456789';

async function sameRule(relay: RelayProcess, admin: string): Promise<void> {
  for (const bad of ['x.', 'a..b', 'a.b.']) {
    const created = await call('POST', `${relay.url}/api/channels`, admin, { name: bad, secrets: ['channel-names-secret-0123'] });
    assert.equal(created.status, 400, `create ${bad}`);
    assert.match(created.json.error, /no '\.\.' and no '\.' at the end/);
    const delivered = await post(`${relay.url}/hooks/${bad}`, '{}');
    assert.equal(delivered.status, 400, `ingress ${bad}`);
  }
  assert.equal((await call('POST', `${relay.url}/api/channels`, admin, { name: 'a.b', secrets: ['channel-names-secret-0123'] })).status, 201);
  assert.equal((await post(`${relay.url}/hooks/c.d`, '{"implicit":true}')).status, 200);
  assert.equal((await call('GET', `${relay.url}/api/deliveries?channel=c.d`, admin)).json.deliveries.length, 1);
  assert.equal((await post(`${relay.url}/hooks/default`, '{}')).status, 200, 'still serving');
}

describe('channel names: one rule for both stores (relay processes)', function () {
  this.timeout(90_000);
  const procs = relayProcesses();

  it('file journal', async () => {
    const data = tempDir();
    const relay = await spawnRelay(['--data', data]);
    procs.push(relay);
    await sameRule(relay, readFileSync(join(data, 'token'), 'utf8').trim());
    const cli = await runCli(['channels', 'create', 'x.', '--generate-secret', '--relay', relay.url], { SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /no '\.\.' and no '\.' at the end/);
  });

  describe('JetStream', () => {
    let nats: NatsCluster;
    before(async () => (nats = await startNats(1)));
    after(async () => nats?.stop());

    it('the same answers on --store nats://', async () => {
      const relay = await spawnRelay(['--store', nats.urls, '--data', tempDir()], { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
      procs.push(relay);
      await sameRule(relay, ADMIN);
    });
  });
});
