// Pins issue 36 item 7: the page's session is bound to this relay's origin. A cookie alone (which
// the browser sends to every port of the host) is no session; behind a TLS proxy that says
// X-Forwarded-Proto: https from a --trust-proxy address the cookie is Secure with __Host-; and the
// nginx block of docs/public-relay.md works end to end with Debian's nginx (installed when missing).
import { strict as assert } from 'node:assert';
import { Agent, request } from 'undici';
import { startRelay, type RelayServer } from '../../../relay/server';
import { signed, tempDir } from '../relay/support/helpers';
import { makeTestCerts } from '../relay/support/certs';
import { startNginx, type Nginx } from './nginx';
import { call, readEvents, signIn } from './pageHelpers';

const SECRET = 'page-origin-secret-0123456789';

describe('the page session is bound to the relay origin (issue 36 item 7)', function () {
  this.timeout(120_000);

  describe('on a plain-http relay', () => {
    let relay: RelayServer;
    before(async () => {
      relay = await startRelay({ port: 0, dataDir: tempDir(), trustProxy: ['10.9.9.9'] });
    });
    after(async () => relay?.close());

    it("takes no cookie without the tab's key: another local server that got the cookie gets no session", async () => {
      const { cookie, csrf, key, headers } = await signIn(relay, relay.token);
      const seq = relay.store.lastSeq;
      for (const [path, method] of [
        ['/page/session', 'GET'],
        ['/api/deliveries', 'GET'],
        ['/page/events', 'GET'],
      ] as const) {
        assert.equal((await call(`${relay.url}${path}`, method, { cookie })).status, 401, `${path}: the cookie alone`);
        assert.equal((await call(`${relay.url}${path}`, method, { cookie, 'x-page-key': 'x'.repeat(key.length) })).status, 401, `${path}: a wrong key`);
      }
      // Signing out with the cookie and the CSRF token but no key ends nothing.
      await call(`${relay.url}/page/session`, 'DELETE', { cookie, origin: relay.url, 'x-csrf-token': csrf });
      const who = await call(`${relay.url}/page/session`, 'GET', headers);
      assert.equal(who.status, 200);
      assert.equal(who.json.key, undefined, 'the key is given once, at sign-in');
      assert.equal((await call(`${relay.url}/api/deliveries?since=${seq}`, 'GET', headers)).status, 200);
    });

    it('ignores X-Forwarded-Proto from a peer that is no --trust-proxy address: no Secure cookie', async () => {
      const r = await call(`${relay.url}/page/session`, 'POST', { origin: relay.url, 'x-forwarded-proto': 'https' }, { token: relay.token });
      assert.equal(r.status, 200);
      assert.match(String(r.headers['set-cookie']), /^sh_page=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    });
  });

  describe('behind nginx with TLS, the documented block (docs/public-relay.md), on --public', () => {
    let relay: RelayServer;
    let nginx: Nginx;
    let agent: Agent;
    before(async () => {
      const certs = makeTestCerts();
      relay = await startRelay({ port: 0, dataDir: tempDir(), requireVerified: true, secrets: [SECRET], trustProxy: ['127.0.0.1'] });
      nginx = await startNginx(relay.port, certs.serverCert, certs.serverKey);
      agent = new Agent({ connect: { ca: certs.ca } });
    });
    after(async () => {
      await agent?.close();
      await nginx?.stop();
      await relay?.close();
    });

    it('signs a channel token in with a Secure __Host- cookie; its feed, replay and sign-out work through the proxy', async () => {
      const base = nginx.url;
      const made = await call(`${base}/api/channels`, 'POST', { authorization: `Bearer ${relay.token}` }, { name: 'proxied', secrets: [SECRET] }, agent);
      assert.equal(made.status, 201, JSON.stringify(made.json));
      const signedIn = await call(`${base}/page/session`, 'POST', { origin: base, 'content-type': 'application/json' }, { token: made.json.token }, agent);
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.json));
      const setCookie = String(signedIn.headers['set-cookie']);
      assert.match(setCookie, /^__Host-sh_page=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
      const cookie = setCookie.split(';')[0]!;
      const headers = { cookie, 'x-page-key': String(signedIn.json.key) };
      assert.equal((await call(`${base}/page/session`, 'GET', { cookie }, undefined, agent)).status, 401, 'the cookie alone');
      assert.equal((await call(`${base}/page/session`, 'GET', headers, undefined, agent)).json.channel, 'proxied');

      // The live feed, through the proxy: the token's own new delivery arrives.
      const body = '{"through":"nginx"}';
      let seq = 0;
      const got = await readEvents(
        `${base}/page/events`,
        headers,
        1,
        async () => {
          const r = await request(`${base}/hooks/proxied`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...signed(SECRET, body) },
            body,
            dispatcher: agent,
          });
          assert.equal(r.statusCode, 200);
          seq = ((await r.body.json()) as { seq: number }).seq;
        },
        agent,
      );
      assert.equal(got[0]!.seq, seq);

      // A state change: this relay's Origin (as the browser sends it: https, the proxy's port) and the CSRF token.
      const csrf = String(signedIn.json.csrf);
      const replay = await call(`${base}/api/deliveries/${seq}/replay`, 'POST', { ...headers, origin: base, 'x-csrf-token': csrf }, {}, agent);
      assert.equal(replay.status, 200, JSON.stringify(replay.json));
      const out = await call(`${base}/page/session`, 'DELETE', { ...headers, origin: base, 'x-csrf-token': csrf }, undefined, agent);
      assert.equal(out.status, 200, JSON.stringify(out.json));
      assert.match(String(out.headers['set-cookie']), /^__Host-sh_page=; .*Max-Age=0; Secure$/);
      assert.equal((await call(`${base}/page/session`, 'GET', headers, undefined, agent)).status, 401);
    });
  });
});
