// Pins issue 42 item 1: with two of three nats-servers gone (no quorum) both relay instances say
// they are not ready (/readyz 503, relay_store_ready 0) while every post is answered 503, and say
// they are ready again once a quorum is back and posts are stored. Item 7: the refused post is
// logged with its delivery id and the lost quorum named; a JetStream relay never speaks of a journal.
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import { post, signed, spawnRelay, tempDir, type RelayProcess } from '../relay/support/helpers';
import { sample, scrape } from '../relay/support/metricsText';
import { startNats, waitForStreamQuorum, type NatsCluster } from './natsServers';
import { pollUntil } from '../../support/poll';

const SECRET = 'quorum-secret-0123456789';
const ADMIN = 'quorum-admin-token-0123456789';

async function readyz(relay: RelayProcess): Promise<{ status: number; body: string }> {
  const res = await request(`${relay.url}/readyz`);
  return { status: res.statusCode, body: await res.body.text() };
}

/** Asks /readyz until it answers `status` (and a body matching `body`; bounded: 40 s); says what it last saw otherwise. */
async function readyzUntil(relay: RelayProcess, status: number, body = /./): Promise<{ status: number; body: string }> {
  let last = { status: 0, body: '' };
  const ask = async () => {
    last = await readyz(relay);
    return last.status === status && body.test(last.body) ? last : undefined;
  };
  return pollUntil(
    `/readyz of ${relay.url} answering ${status} ${body}`,
    ask,
    () => `${last.status} ${last.body}\n${relay.stderr().slice(-3000)}`,
    40_000,
    200,
  );
}

describe('readiness on a JetStream cluster that loses its quorum (3 nats-server, 2 relays)', function () {
  this.timeout(180_000);
  let nats: NatsCluster;
  const relays: RelayProcess[] = [];

  before(async () => {
    nats = await startNats(3);
  });
  after(async () => {
    for (const r of relays) await r.stop('SIGKILL');
    await nats?.stop();
  });

  it('is not ready exactly while posts would fail, on both instances, and says why', async () => {
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    const args = ['--store', nats.urls, '--secret', SECRET];
    const a = await spawnRelay([...args, '--data', tempDir()], env);
    const b = await spawnRelay([...args, '--data', tempDir()], env);
    relays.push(a, b);
    const send = async (via: RelayProcess, what: string, id = 'd-0') =>
      (await post(`${via.url}/hooks/default`, what, signed(SECRET, what, { 'x-service-delivery': id }))).status;
    for (const r of [a, b]) {
      assert.equal(await send(r, JSON.stringify({ before: r.url })), 200);
      assert.equal((await readyzUntil(r, 200)).body, '{"ready":true}');
    }

    const [survivor, ...gone] = nats.nodes;
    for (const n of gone) await n.kill();
    for (const r of [a, b]) {
      // A relay connected to a server killed says so first ("lost the connection"), then reconnects
      // to the one left: what must follow is the stream's own state.
      const said = await readyzUntil(r, 503, /SH_DELIVERIES/);
      assert.match(said.body, /quorum|leader|acknowledge/, 'the answer says why it cannot take deliveries');
      const metrics = await scrape(`${r.url}/metrics`, ADMIN);
      assert.equal(sample(metrics.text, 'relay_store_ready'), 0, 'relay_store_ready follows /readyz');
      assert.equal(sample(metrics.text, 'relay_jetstream_connected'), 1, 'still connected to the server left');
    }
    assert.equal(await send(a, JSON.stringify({ lost: 'quorum' }), 'lost-quorum-1'), 503, 'a post while not ready is refused');
    assert.equal((await readyz(a)).status, 503, 'and the relay still says it is not ready');
    assert.match(a.stderr(), /NOT READY: JetStream cannot store deliveries in SH_DELIVERIES/, 'the log names the loss');
    assert.match(
      a.stderr(),
      /ingress: delivery lost-quorum-1 to channel 'default' not stored: JetStream lost its quorum for SH_DELIVERIES .*answered 503 with Retry-After/,
      'the refused delivery is logged by its id, and the lost quorum named',
    );

    await gone[0]!.start();
    await waitForStreamQuorum([survivor!.url, gone[0]!.url], 'SH_DELIVERIES', 2);
    for (const r of [a, b]) {
      await readyzUntil(r, 200);
      assert.equal(sample((await scrape(`${r.url}/metrics`, ADMIN)).text, 'relay_store_ready'), 1);
      assert.equal(await send(r, JSON.stringify({ back: r.url })), 200, 'ready again: a post is stored');
    }
    assert.equal(await b.stop('SIGTERM'), 0);
    assert.match(b.stderr(), /stopping \(pending forwards stay in JetStream/);
    assert.doesNotMatch(`${b.stdout()}${b.stderr()}`, /journal/i, 'a JetStream relay never speaks of a journal');
  });
});
