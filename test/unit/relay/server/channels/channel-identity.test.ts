// A channel is a new thing each time it is created (issue 20 item 1): a name deleted and created
// again, or an API channel taking a name an implicit channel used, starts empty. Its token never
// lists, reads, replays or streams what an earlier channel of that name received, on the file
// journal (also after a restart that reads sealed segments' index files) and on JetStream.
import { strict as assert } from 'node:assert';
import { subscribe } from '../../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import type { DeliveryMessage } from '../../../../../src/core/relay/protocol';
import { post, relayProcesses, signed, spawnRelay, tempDir } from '../../support/helpers';
import { call } from '../../support/publicHelpers';
import { startNats, type NatsCluster } from '../../../nats/natsServers';

const SECRET = 'alice-secret-0123456789';

/** The first delivery a channel token's stream from seq 0 hands over. */
function firstStreamed(url: string, token: string): { first: Promise<DeliveryMessage['delivery']>; close: () => void } {
  let resolve!: (d: DeliveryMessage['delivery']) => void;
  const first = new Promise<DeliveryMessage['delivery']>((r) => (resolve = r));
  const sub = subscribe({ url: url.replace(/^http/, 'ws'), token, since: 0, onDelivery: (d) => resolve(d) });
  return { first, close: () => sub.close() };
}

async function create(url: string, admin: string, name: string): Promise<string> {
  const r = await call('POST', `${url}/api/channels`, admin, { name, secrets: [SECRET] });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  return r.json.token as string;
}

const seqsOf = async (url: string, token: string) =>
  ((await call('GET', `${url}/api/deliveries`, token)).json.deliveries as { seq: number }[]).map((d) => d.seq);

/** The scenario on a running relay; returns the new channel's token and its own delivery's seq. */
async function recreate(url: string, admin: string): Promise<{ token: string; own: number; old: number[] }> {
  const first = await create(url, admin, 'alice');
  const old: number[] = [];
  for (const n of [1, 2]) {
    const body = JSON.stringify({ n });
    const r = await post(`${url}/hooks/alice`, body, signed(SECRET, body));
    assert.equal(r.status, 200);
    old.push((r.json as { seq: number }).seq);
  }
  assert.deepEqual(await seqsOf(url, first), [...old].reverse());
  assert.equal((await call('DELETE', `${url}/api/channels/alice`, admin)).status, 204);
  const token = await create(url, admin, 'alice');

  assert.deepEqual(await seqsOf(url, token), [], 'the new channel starts empty');
  assert.equal((await call('GET', `${url}/api/deliveries/${old[0]}`, token)).status, 404);
  assert.equal((await call('POST', `${url}/api/deliveries/${old[0]}/replay`, token, {})).status, 404, 'no replay of the old channel');
  // A channel token sees its own channel before its first delivery (with nothing received), never the old counts.
  assert.deepEqual(
    ((await call('GET', `${url}/api/status`, token)).json.channels as { name: string; received: number }[]).map((c) => [c.name, c.received]),
    [['alice', 0]],
  );
  assert.equal((await call('GET', `${url}/api/channels/alice`, token)).json.received, 0);

  const stream = firstStreamed(url, token);
  const body = JSON.stringify({ n: 3 });
  const own = ((await post(`${url}/hooks/alice`, body, signed(SECRET, body))).json as { seq: number }).seq;
  const streamed = await stream.first;
  stream.close();
  assert.equal(streamed.seq, own, 'its stream from 0 starts with its own first delivery');
  assert.deepEqual(await seqsOf(url, token), [own]);
  assert.equal((await call('GET', `${url}/api/channels/alice`, token)).json.received, 1);
  assert.equal((await call('GET', `${url}/api/channels/alice`, admin)).json.received, 1);
  assert.equal((await call('GET', `${url}/api/deliveries/${old[0]}`, admin)).status, 200, 'the admin still sees the old deliveries');

  // An implicit channel's deliveries do not pass to an API channel created under its name.
  const implicit = await post(`${url}/hooks/bob`, '{"implicit":true}');
  assert.equal(implicit.status, 200);
  const bob = await create(url, admin, 'bob');
  assert.deepEqual(await seqsOf(url, bob), []);
  assert.equal((await call('GET', `${url}/api/deliveries/${(implicit.json as { seq: number }).seq}`, bob)).status, 404);
  return { token, own, old };
}

describe('a re-created channel starts empty (channel generations)', function () {
  this.timeout(90_000);

  it('file journal: across delete/create and an implicit name, and after a restart reading sealed segments', async () => {
    const dataDir = tempDir();
    const token = 'admin-token-0123456789abcdef';
    let relay: RelayServer = await startRelay({ port: 0, dataDir, token, segmentBytes: 512 });
    let r: Awaited<ReturnType<typeof recreate>>;
    try {
      r = await recreate(relay.url, token);
    } finally {
      await relay.close();
    }
    relay = await startRelay({ port: 0, dataDir, token, segmentBytes: 512 });
    try {
      assert.deepEqual(await seqsOf(relay.url, r.token), [r.own], 'still only its own after a restart');
      assert.equal((await call('GET', `${relay.url}/api/deliveries/${r.old[1]}`, r.token)).status, 404);
    } finally {
      await relay.close();
    }
  });

  describe('JetStream', () => {
    let nats: NatsCluster;
    const procs = relayProcesses();
    before(async () => (nats = await startNats(1)));
    after(async () => nats?.stop());

    it('the same on a relay process with --store nats://', async () => {
      const admin = 'team-admin-token-0123456789';
      const relay = await spawnRelay(['--store', nats.urls, '--data', tempDir()], { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: admin });
      procs.push(relay);
      await recreate(relay.url, admin);
    });
  });
});
