// The channel page's sessions and feed over plain HTTP (the browser flows: ./browser.test.ts):
// cookie attributes (Secure under TLS), Origin and CSRF checks on state changes, the sign-in rate
// limit, the live feed resuming by seq, and a deleted channel ending its sessions and streams.
import { strict as assert } from 'node:assert';
import { Agent, request } from 'undici';
import { startRelay, type RelayServer } from '../../../relay/server';
import { call, readEvents, signIn } from './pageHelpers';
import { loadTls } from '../../../relay/server/tls';
import { makeTestCerts } from '../relay/support/certs';
import { join } from 'node:path';
import { post, ROOT, tempDir } from '../relay/support/helpers';

const SECRET = 'page-session-secret-0123456789';

describe('relay page sessions (HTTP)', function () {
  this.timeout(30_000);
  let relay: RelayServer;

  before(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), rejectLimits: { perSource: { burst: 3, perMinute: 1 }, total: { burst: 100, perMinute: 60 } } });
  });
  after(async () => relay.close());

  it('says how to build the page when it is not built (503)', async () => {
    const r = await call(`${relay.url}/`, 'GET');
    assert.equal(r.status, 503);
    assert.match(String(r.json.error), /npm run build/);
  });

  it('gives an HttpOnly, SameSite=Strict, expiring cookie; state changes need this Origin and the CSRF token', async () => {
    const { headers: page, csrf, setCookie } = await signIn(relay, relay.token);
    assert.match(setCookie, /^sh_page=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=28800$/);
    assert.ok(!setCookie.includes(relay.token));
    const hook = await post(`${relay.url}/hooks/default`, '{"a":1}');
    const seq = (hook.json as { seq: number }).seq;
    const replay = (headers: Record<string, string>) =>
      call(`${relay.url}/api/deliveries/${seq}/replay`, 'POST', { ...page, 'content-type': 'text/plain', ...headers }, {});
    assert.equal((await replay({ origin: 'http://127.0.0.1:1' })).status, 403, 'another origin');
    assert.equal((await replay({})).status, 403, 'no Origin');
    assert.equal((await replay({ origin: relay.url })).status, 403, 'no CSRF token');
    assert.equal((await replay({ origin: relay.url, 'x-csrf-token': 'x'.repeat(csrf.length) })).status, 403, 'wrong CSRF token');
    assert.equal((await replay({ origin: relay.url, 'x-csrf-token': csrf })).status, 200);
    // Reads need the cookie and the tab's key only; the bearer token keeps working as before.
    assert.equal((await call(`${relay.url}/api/deliveries`, 'GET', page)).status, 200);
    assert.equal((await call(`${relay.url}/api/deliveries`, 'GET', { authorization: `Bearer ${relay.token}` })).status, 200);
    assert.equal(
      (await call(`${relay.url}/page/session`, 'POST', { origin: 'http://evil.example' }, { token: relay.token })).status,
      403,
      'sign-in from another origin',
    );
    // Signing out needs the CSRF token too, then the cookie and key are worth nothing.
    assert.equal((await call(`${relay.url}/page/session`, 'DELETE', { ...page, origin: relay.url })).status, 403);
    const out = await call(`${relay.url}/page/session`, 'DELETE', { ...page, origin: relay.url, 'x-csrf-token': csrf });
    assert.equal(out.status, 200);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    assert.equal((await call(`${relay.url}/api/deliveries`, 'GET', page)).status, 401);
  });

  it('answers a wrong token with a clear 401, then the rate limit (429 with Retry-After)', async () => {
    const wrong = () => call(`${relay.url}/page/session`, 'POST', { origin: relay.url }, { token: 'wrong-token-0123456789' });
    for (let i = 0; i < 3; i++) {
      const r = await wrong();
      assert.equal(r.status, 401);
      assert.match(String(r.json.error), /not a token of this relay/);
    }
    const limited = await wrong();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });

  it('streams new deliveries live and resumes after the last seq (Last-Event-ID)', async () => {
    const { headers: page } = await signIn(relay, relay.token);
    const send = () => post(`${relay.url}/hooks/default`, '{"live":true}');
    const first = await readEvents(`${relay.url}/page/events`, page, 2, async () => (await send(), await send()));
    assert.deepEqual(
      first.map((e) => e.event),
      ['delivery', 'delivery'],
    );
    const last = first.at(-1)!;
    assert.equal(last.id, String(last.seq));
    await send(); // while disconnected
    const resumed = await readEvents(`${relay.url}/page/events`, { ...page, 'last-event-id': last.id! }, 1);
    assert.deepEqual(
      resumed.map((e) => e.seq),
      [last.seq + 1],
    );
    assert.equal((await call(`${relay.url}/page/events`, 'GET')).status, 401);
  });

  it('ends the sessions and streams of a deleted channel', async () => {
    const made = await call(`${relay.url}/api/channels`, 'POST', { authorization: `Bearer ${relay.token}` }, { name: 'gone', secrets: [SECRET] });
    const { headers: page } = await signIn(relay, String(made.json.token));
    assert.equal((await call(`${relay.url}/page/session`, 'GET', page)).json.channel, 'gone');
    // Another channel's delivery is not found for it, in the doctor's endpoint too.
    const other = (await post(`${relay.url}/hooks/default`, '{"b":2}')).json as { seq: number };
    assert.equal((await call(`${relay.url}/page/explain/${other.seq}`, 'GET', page)).status, 404);
    assert.equal((await call(`${relay.url}/api/deliveries/${other.seq}`, 'GET', page)).status, 404);
    const stream = await request(`${relay.url}/page/events`, { headers: page });
    const ended = (async () => {
      for await (const _ of stream.body) void _;
    })();
    const del = await call(`${relay.url}/api/channels/gone`, 'DELETE', { authorization: `Bearer ${relay.token}` });
    assert.equal(del.status, 204);
    await ended; // the server ended the stream
    assert.equal((await call(`${relay.url}/page/session`, 'GET', page)).status, 401);
    assert.equal((await call(`${relay.url}/api/deliveries`, 'GET', page)).status, 401);
  });

  it('under TLS: a __Host- cookie with Secure', async () => {
    const certs = makeTestCerts();
    const pageDir = tempDir('sh-page-');
    const { buildPage } = (await import(join(ROOT, 'scripts/pageBuild.mjs'))) as { buildPage: (dir: string) => Promise<unknown> };
    await buildPage(pageDir);
    const tls = await startRelay({ port: 0, dataDir: tempDir(), pageDir, tls: loadTls({ cert: certs.serverCert, key: certs.serverKey }) });
    const dispatcher = new Agent({ connect: { ca: certs.ca } });
    try {
      const { setCookie, headers: signedIn } = await signIn(tls, tls.token, dispatcher);
      assert.match(setCookie, /^__Host-sh_page=[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
      assert.equal((await call(`${tls.url}/page/session`, 'GET', signedIn, undefined, dispatcher)).json.kind, 'admin');
      const page = await request(`${tls.url}/`, { dispatcher });
      await page.body.dump();
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    } finally {
      await dispatcher.close();
      await tls.close();
    }
  });
});
