// Pins issue 36 item 20 (`replay` to subscribers): a subscriber of every channel (the editor with
// the admin token) that says which channels it posts to an app (`posts=`) is counted for those
// only; a delivery of another channel finds no subscriber (409) instead of one that posts nothing.
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import { RelayApi } from '../../../../../relay/client/api';
import { subscribe, type Subscription } from '../../../../../relay/client/subscribe';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { postingWsUrl } from '../../../../../src/core/tree';
import { post, signed, tempDir } from '../../support/helpers';

const ALICE = 'alice-posts-secret-0123456789abcdef';
const BOB = 'bob-posts-secret-0123456789abcdef';

describe('replay to subscribers counts those that post the channel (posts=)', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  let sub: Subscription | undefined;
  beforeEach(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
    await api.createChannel({ name: 'alice', secrets: [ALICE] });
    await api.createChannel({ name: 'bob', secrets: [BOB] });
  });
  afterEach(async () => {
    sub?.close();
    await relay.close();
  });

  const deliver = async (channel: string, secret: string) => {
    const body = `{"to":"${channel}"}`;
    const r = await post(`${relay.url}/hooks/${channel}`, body, signed(secret, body, { 'x-service-event': 'push' }));
    assert.equal(r.status, 200);
    return (r.json as { seq: number }).seq;
  };
  const replay = async (seq: number) => {
    const res = await request(`${relay.url}/api/deliveries/${seq}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'subscribers' }),
    });
    return { status: res.statusCode, json: (await res.body.json()) as { subscribers?: number } };
  };

  it("an admin subscriber posting alice is alice's subscriber, not bob's", async () => {
    const opened = new Promise<void>((resolve) => {
      sub = subscribe({
        url: postingWsUrl(`${relay.url.replace(/^http/, 'ws')}/ws`, ['alice']),
        token: relay.token,
        bodies: true,
        onDelivery: () => undefined,
        onState: (s) => s.state === 'open' && resolve(),
      });
    });
    await opened;
    const a = await deliver('alice', ALICE);
    const b = await deliver('bob', BOB);
    assert.deepEqual([(await replay(a)).status, (await replay(a)).json.subscribers], [202, 1]);
    assert.equal((await replay(b)).status, 409, 'nobody posts bob to an app');
  });
});
