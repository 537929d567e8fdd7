// Pins the page's shared sessions behind docs/team-relay.md's nginx block (./nginx.ts takes it from
// the page): TLS from the client to nginx and again from nginx to two relay processes (TLS, openssl
// certificates made here) on one JetStream store (a real nats-server), round robin. A session signed
// in through one instance works on the next request, which nginx sends to the other; signing out
// ends it (and its live feed) at every instance; a channel token's session sees only its channel
// (API and live feed); once the channel is deleted its session ends everywhere and its token's
// sign-in gets the documented 401, naming a deleted channel's token. The page itself comes from either.
// And the block's WebSocket: a forward through it keeps every delivery once past its instance's SIGKILL.
import { strict as assert } from 'node:assert';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { cli, ROOT, signed, spawnRelay, startTarget, tempDir, type RelayProcess } from '../relay/support/helpers';
import { forwarder } from '../relay/support/forwarderProcess';
import { sample } from '../relay/support/metricsText';
import { makeTestCerts, type TestCerts } from '../relay/support/certs';
import { startNats, type NatsCluster } from '../nats/natsServers';
import { pollUntil } from '../../support/poll';
import { startTeamNginx, type Nginx } from './nginx';
import { call, readEvents, type Answer } from './pageHelpers';
import { within } from '../relay/support/helpers';

const ADMIN = 'team-nginx-admin-token-0123456789abcdef';
const SECRET = 'team-nginx-secret-0123456789abcdef';

describe("page sessions behind docs/team-relay.md's nginx: TLS to nginx and to two relay instances on one JetStream store", function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  let certs: TestCerts;
  let agent: Agent;
  let relays: RelayProcess[] = [];
  let nginx: Nginx;

  before(async () => {
    nats = await startNats(1);
    certs = makeTestCerts();
    agent = new Agent({ connect: { ca: certs.ca } });
    // A copy of the bundled CLI with the page built beside it (dist/ has it so), for these relays alone.
    const bundle = tempDir('sh-page-cli-');
    copyFileSync(await cli(), join(bundle, 'cli.js'));
    const { buildPage } = (await import(join(ROOT, 'scripts/pageBuild.mjs'))) as { buildPage: (dir: string) => Promise<unknown> };
    await buildPage(join(bundle, 'page'));
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    const args = () => ['--store', nats.urls, '--data', tempDir(), '--tls-cert', certs.serverCert, '--tls-key', certs.serverKey, '--trust-proxy', '127.0.0.1'];
    relays = [await spawnRelay(args(), env, { cli: join(bundle, 'cli.js') }), await spawnRelay(args(), env, { cli: join(bundle, 'cli.js') })];
    nginx = await startTeamNginx([relays[0]!.port, relays[1]!.port], { cert: certs.serverCert, key: certs.serverKey, ca: certs.caCert });
  });
  after(async () => {
    await nginx?.stop();
    for (const r of relays) await r.stop('SIGKILL');
    await agent?.close();
    await nats?.stop();
  });

  /** A request through nginx. */
  const via = (path: string, method = 'GET', headers: Record<string, string> = {}, body?: unknown): Promise<Answer> =>
    call(`${nginx.url}${path}`, method, body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body, agent);
  /** A request to each instance directly (over its own TLS). */
  const atEach = (path: string, headers: Record<string, string>) => Promise.all(relays.map((r) => call(`${r.url}${path}`, 'GET', headers, undefined, agent)));
  /** The instance (0 or 1) that answered each request through nginx since `from` (its access log; a line is written once the request is done). */
  const served = async (from: number, n: number): Promise<number[]> => {
    const ports = relays.map((r) => `127.0.0.1:${r.port}`);
    const lines = await pollUntil(
      `nginx logged ${n} requests`,
      () => Promise.resolve(nginx.upstreams().length >= from + n ? nginx.upstreams().slice(from, from + n) : undefined),
      () => nginx.upstreams().join('\n'),
      10_000,
      20,
    );
    return lines.map((l) => ports.indexOf(l));
  };
  /** Until every instance answers `path` with `status` for `headers` ("within moments": the store tells them). */
  const everywhere = async (path: string, headers: Record<string, string>, status: number) => {
    let seen: number[] = [];
    await pollUntil(
      `${path} answering ${status} at both instances`,
      async () => ((seen = (await atEach(path, headers)).map((a) => a.status)).every((s) => s === status) ? true : undefined),
      () => seen.join(', '),
      10_000,
      50,
    );
  };

  /** The live feed through nginx: resolves `ended` once the relay closed it. */
  const feed = async (headers: Record<string, string>): Promise<{ opened: number; ended: Promise<void> }> => {
    const r = await request(`${nginx.url}/page/events`, { headers, dispatcher: agent });
    const ended = (async () => {
      for await (const chunk of r.body) void chunk;
    })();
    return { opened: r.statusCode, ended };
  };
  /** Posts `body` to `channel` through nginx, or straight to instance `at` (signed for team); its seq. */
  const post = async (channel: string, body: string, at?: RelayProcess): Promise<number> => {
    const r = await request(`${at?.url ?? nginx.url}/hooks/${channel}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(channel === 'team' ? signed(SECRET, body) : {}) },
      body,
      dispatcher: agent,
    });
    const json = (await r.body.json()) as { seq: number };
    assert.equal(r.statusCode, 200, JSON.stringify(json));
    return json.seq;
  };

  async function signIn(token: string): Promise<{ headers: Record<string, string>; csrf: string; setCookie: string }> {
    const r = await via('/page/session', 'POST', { origin: nginx.url }, { token });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const setCookie = String(r.headers['set-cookie']);
    return { headers: { cookie: setCookie.split(';')[0]!, 'x-page-key': String(r.json.key) }, csrf: String(r.json.csrf), setCookie };
  }

  it('serves the relay page from either instance through nginx, with its Content-Security-Policy', async () => {
    const from = nginx.upstreams().length;
    for (let i = 0; i < 2; i++) {
      const r = await request(`${nginx.url}/`, { dispatcher: agent });
      await r.body.dump();
      assert.equal(r.statusCode, 200);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
    }
    assert.deepEqual((await served(from, 2)).sort(), [0, 1], 'one page from each instance');
  });

  it('signed in through one instance, the next request lands on the other and is signed in; signing out ends it at both', async () => {
    const from = nginx.upstreams().length;
    const s = await signIn(ADMIN);
    assert.match(s.setCookie, /^__Host-sh_page=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/, 'Secure __Host- behind TLS');
    const answers: number[] = [];
    for (let i = 0; i < 4; i++) answers.push((await via(i % 2 ? '/api/deliveries' : '/page/session', 'GET', s.headers)).status);
    assert.deepEqual(answers, [200, 200, 200, 200]);
    const by = await served(from, 5);
    assert.ok(!by.includes(-1), `nginx went to the relays only: ${nginx.upstreams().slice(from).join(' | ')}`);
    assert.notEqual(by[1], by[0], `the request after the sign-in went to the other instance: ${by.join(' ')}`);
    assert.deepEqual(
      (await atEach('/page/session', s.headers)).map((a) => a.status),
      [200, 200],
      'signed in at each instance, asked directly',
    );

    const live = await feed(s.headers);
    assert.equal(live.opened, 200, 'the live feed through nginx');
    const beforeOut = nginx.upstreams().length;
    const out = await via('/page/session', 'DELETE', { ...s.headers, origin: nginx.url, 'x-csrf-token': s.csrf });
    assert.equal(out.status, 200, JSON.stringify(out.json));
    await everywhere('/page/session', s.headers, 401);
    await within(live.ended, 10_000, () => 'the live feed stayed open after the sign-out');
    // nginx logs a request when it ends: the sign-out, then the feed it ended.
    const [signOutAt, feedAt] = await served(beforeOut, 2);
    assert.notEqual(signOutAt, feedAt, 'signed out at one instance, the feed ended at the other');
    const after: number[] = [];
    for (let i = 0; i < 4; i++) after.push((await via(i % 2 ? '/api/deliveries' : '/page/session', 'GET', s.headers)).status);
    assert.deepEqual(after, [401, 401, 401, 401], 'signed out through nginx, at whichever instance');
  });

  it("a channel token's session sees only its channel at both instances; deleting the channel ends it everywhere and its token is refused", async () => {
    const admin = { authorization: `Bearer ${ADMIN}` };
    const made = await via('/api/channels', 'POST', admin, { name: 'team', secrets: [SECRET] });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    const token = String(made.json.token);
    const posted: Record<string, number[]> = { team: [], default: [] };
    for (const channel of ['team', 'default', 'team', 'default'])
      posted[channel]!.push(await post(channel, JSON.stringify({ channel, n: posted[channel]!.length })));

    const s = await signIn(token);
    // Its live feed (held by one instance): a delivery to default posted first never shows; its own
    // next ones, one ingested at each instance, both do, in order.
    const events = await readEvents(
      `${nginx.url}/page/events`,
      s.headers,
      2,
      async () => {
        await post('default', '{"live":"default"}');
        for (const [i, at] of relays.entries()) posted.team!.push(await post('team', JSON.stringify({ live: 'team', at: i }), at));
      },
      agent,
    );
    assert.deepEqual(
      events.map((e) => e.seq),
      posted.team!.slice(-2),
      `its own channel's, from both instances: ${events.map((e) => e.data).join(' | ')}`,
    );
    const live = await feed(s.headers);
    assert.equal(live.opened, 200);
    const from = nginx.upstreams().length;
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const who = await via('/page/session', 'GET', s.headers);
      assert.equal(who.status, 200);
      assert.equal(who.json.channel, 'team');
      const list = await via('/api/deliveries', 'GET', s.headers);
      assert.equal(list.status, 200);
      seen.push(
        (list.json.deliveries as { seq: number }[])
          .map((d) => d.seq)
          .sort((a, b) => a - b)
          .join(' '),
      );
      const other = await via('/api/deliveries?channel=default', 'GET', s.headers);
      assert.equal(other.status, 403, JSON.stringify(other.json));
      assert.match(String(other.json.error), /this token is limited to channel 'team'/);
      const theirs = await via(`/api/deliveries/${posted.default![0]}`, 'GET', s.headers);
      assert.equal(theirs.status, 404, "another channel's delivery is not found");
    }
    assert.deepEqual(seen, [posted.team!.join(' '), posted.team!.join(' ')], 'only its own deliveries, at each instance');
    assert.deepEqual(new Set(await served(from, 8)), new Set([0, 1]), 'both instances answered the session');

    const gone = await via('/api/channels/team', 'DELETE', admin);
    assert.equal(gone.status, 204, JSON.stringify(gone.json));
    await everywhere('/page/session', s.headers, 401);
    await within(live.ended, 10_000, () => 'the live feed stayed open after the deletion');
    for (let i = 0; i < 2; i++) {
      const again = await via('/page/session', 'POST', { origin: nginx.url }, { token });
      assert.equal(again.status, 401, JSON.stringify(again.json));
      assert.match(String(again.json.error), /^that is not a token of this relay: a wrong one, or a deleted channel's/);
    }
  });

  it('a forward through nginx (WebSocket, TLS on both sides) keeps every delivery once after its instance is killed (SIGKILL)', async () => {
    const app = await startTarget();
    const f = await forwarder(['--relay', nginx.url.replace(/^https/, 'wss'), '--to', app.url, '--output', 'text'], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: ADMIN,
      NODE_EXTRA_CA_CERTS: certs.caCert,
    });
    try {
      await within(f.saw(/connected \(relay at seq/), 30_000, f.out);
      // The instance holding its WebSocket, by the relays' own count of their subscribers.
      const held = await Promise.all(
        relays.map(async (r) => {
          const m = await request(`${r.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` }, dispatcher: agent });
          return sample(await m.body.text(), 'relay_subscribers_connected');
        }),
      );
      assert.deepEqual([...held].sort(), [0, 1], `one instance holds the forward: ${held.join(', ')}`);
      const bodies = Array.from({ length: 10 }, (_, i) => JSON.stringify({ throughNginx: i }));
      for (const [i, body] of bodies.entries()) {
        if (i === 5) await relays[held.indexOf(1)]!.stop('SIGKILL');
        // Answered 200 (post checks it): a connection the killed instance refuses goes to the other (proxy_next_upstream).
        await post('default', body);
      }
      const times = (body: string) => app.received.filter((r) => r.body.toString() === body).length;
      await within(
        app.waitUntil(() => bodies.every((b) => times(b) >= 1)),
        30_000,
        () => `the app got ${app.received.length}:\n${f.out()}`,
      );
      assert.deepEqual(
        bodies.map(times),
        bodies.map(() => 1),
        'each once',
      );
      assert.match(f.out(), /connected \(relay at seq[\s\S]*connected \(relay at seq/, 'it reconnected through nginx');
    } finally {
      f.child.kill('SIGKILL');
      await app.close();
    }
  });
});
