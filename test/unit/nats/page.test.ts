// The channel page's session and live feed on a relay process whose store is NATS JetStream (a
// real nats-server): sign in, a delivery posted afterwards arrives on /page/events, the page's
// cookie and key read /api, a replay needs this Origin and the CSRF token. (Browser flows on the file
// store: test/unit/page/browser.test.ts; the page code does not depend on the store.)
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import { post } from '../relay/support/helpers';
import { relayOnNatsPerSuite } from './relayOnNats';

const ADMIN = 'nats-page-admin-token-0123456789';

describe('relay page on NATS JetStream (real nats-server, relay process)', function () {
  this.timeout(60_000);
  const running = relayOnNatsPerSuite(ADMIN);

  it('signs in, streams a new delivery live, and guards replay with Origin and CSRF', async () => {
    const { relay, app } = running();
    const signIn = await request(`${relay.url}/page/session`, { method: 'POST', headers: { origin: relay.url }, body: JSON.stringify({ token: ADMIN }) });
    const who = (await signIn.body.json()) as { csrf: string; kind: string; key: string };
    assert.equal(signIn.statusCode, 200);
    assert.equal(who.kind, 'admin');
    // The cookie and the tab's key of the session (relay/server/page/sessions.ts).
    const cookie = { cookie: String(signIn.headers['set-cookie']).split(';')[0]!, 'x-page-key': who.key };

    const feed = await request(`${relay.url}/page/events`, { headers: cookie });
    assert.equal(feed.statusCode, 200);
    let buf = '';
    const posted = post(`${relay.url}/hooks/default`, '{"on":"jetstream"}');
    for await (const chunk of feed.body) {
      buf += chunk.toString();
      if (/event: delivery\nid: \d+\n/.test(buf)) break;
    }
    feed.body.destroy();
    const seq = ((await posted).json as { seq: number }).seq;
    assert.match(buf, new RegExp(`event: delivery\\nid: ${seq}\\n`));

    const list = await request(`${relay.url}/api/deliveries`, { headers: cookie });
    assert.equal(list.statusCode, 200);
    assert.ok(((await list.body.json()) as { deliveries: { seq: number }[] }).deliveries.some((d) => d.seq === seq));
    await app.waitFor(1);
    const replay = (headers: Record<string, string>) =>
      request(`${relay.url}/api/deliveries/${seq}/replay`, { method: 'POST', headers: { ...cookie, ...headers }, body: '{}' });
    const refused = await replay({ origin: 'http://127.0.0.1:1', 'x-csrf-token': who.csrf });
    await refused.body.dump();
    assert.equal(refused.statusCode, 403);
    const ok = await replay({ origin: relay.url, 'x-csrf-token': who.csrf });
    await ok.body.dump();
    assert.equal(ok.statusCode, 200);
    await app.waitFor(2);
  });
});
