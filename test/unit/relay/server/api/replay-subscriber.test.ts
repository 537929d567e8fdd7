// `service-hooks replay <seq>` of a delivery that a forward subscriber acknowledged (the editor,
// `service-hooks forward`): the subscriber's forward state names no URL, so the relay must not try
// to post to it (it failed with ERR_INVALID_URL), with the admin token or the channel's own token:
// it goes to the channel's connected subscribers (replay-to-subscribers.test.ts), and when none is
// connected it says so.
import { strict as assert } from 'node:assert';
import * as client from '../../../../../relay/client';
import { SUBSCRIBER_TARGET } from '../../../../../src/core/relay/protocol';
import { post, runCliBare, signed, spawnRelayWithData, type RelayProcess } from '../../support/helpers';

const SECRET = 'replay-subscriber-secret-0123456789';

describe('relay CLI: replay of a delivery a subscriber acknowledged', function () {
  this.timeout(60_000);
  let relay: RelayProcess;
  let admin: string;
  let channelToken: string;

  before(async () => {
    ({ relay, admin } = await spawnRelayWithData());
    const api = new client.RelayApi({ baseUrl: relay.url, token: admin });
    channelToken = (await api.createChannel({ name: 'alice', secrets: [SECRET] })).token;
    // A subscriber (as the editor does) takes the delivery and acks it with its app's 204.
    let acked!: () => void;
    const done = new Promise<void>((r) => (acked = r));
    const sub = client.subscribe({
      url: relay.url.replace(/^http/, 'ws'),
      token: channelToken,
      since: 0,
      onDelivery: () => (setImmediate(acked), { forwarded: { status: 204 } }),
    });
    const body = '{"n":1}';
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(SECRET, body, { 'x-service-event': 'push' }))).status, 200);
    await done;
    for (;;) {
      const d = await api.getDelivery(1);
      if (d.forward.some((f) => f.target === SUBSCRIBER_TARGET && f.status === 'ok')) break;
      await new Promise((r) => setImmediate(r)); // the ack is on its way: look again on the next turn
    }
    sub.close();
    await sub.closed;
  });
  after(() => relay.stop('SIGKILL'));

  for (const who of ['admin', 'channel'] as const) {
    it(`with the ${who} token: no ERR_INVALID_URL, it says no subscriber is connected and what to do`, async () => {
      const r = await runCliBare(['replay', '1', '--relay', relay.url], { SERVICE_HOOKS_RELAY_TOKEN: who === 'admin' ? admin : channelToken });
      assert.doesNotMatch(r.stdout + r.stderr, /ERR_INVALID_URL|Invalid URL/);
      assert.equal(r.code, 1, 'nothing was sent');
      assert.match(r.stderr, /^replay: no subscriber of channel alice is connected \(start `service-hooks forward`/m);
    });
  }
});
