// Issue 42 item 2: a page session is one of the service, not of one relay process. Two relay
// processes on one JetStream store (a real nats-server): a session signed in at one instance reads
// /page/session, /api and the live feed at the other; signing out at either ends it at both (and
// its live feed); deleting the channel ends its sessions everywhere; the per-token limit counts
// the sessions of every instance.
import { strict as assert } from 'node:assert';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { request } from 'undici';
import { RelayApi } from '../../../relay/client';
import { MAX_SESSIONS_PER_TOKEN } from '../../../relay/server/page/sessions';
import { spawnRelay, tempDir, within, type RelayProcess } from '../relay/support/helpers';
import { startNats, type NatsCluster } from '../nats/natsServers';
import { pollUntil } from '../../support/poll';

const ADMIN = 'shared-session-admin-token-0123456789';
const SECRET = 'shared-session-secret-0123456789';

interface PageSession {
  headers: Record<string, string>;
  csrf: string;
}

async function signIn(relay: RelayProcess, token: string): Promise<PageSession> {
  const r = await request(`${relay.url}/page/session`, { method: 'POST', headers: { origin: relay.url }, body: JSON.stringify({ token }) });
  const json = (await r.body.json()) as { key: string; csrf: string };
  assert.equal(r.statusCode, 200, JSON.stringify(json));
  const cookie = String(r.headers['set-cookie']).split(';')[0]!;
  return { headers: { cookie, 'x-page-key': json.key }, csrf: json.csrf };
}

async function signOut(relay: RelayProcess, s: PageSession): Promise<number> {
  const r = await request(`${relay.url}/page/session`, { method: 'DELETE', headers: { ...s.headers, origin: relay.url, 'x-csrf-token': s.csrf } });
  await r.body.dump();
  return r.statusCode;
}

async function status(url: string, headers: Record<string, string>): Promise<number> {
  const r = await request(url, { headers });
  await r.body.dump();
  return r.statusCode;
}

/** Asks until `url` answers `want` (bounded: it throws with the last status past 10 s); resolves with it. */
async function answers(url: string, headers: Record<string, string>, want: number): Promise<number> {
  let got = 0;
  return pollUntil(
    `${url} answering ${want}`,
    async () => ((got = await status(url, headers)) === want ? got : undefined),
    () => `answered ${got}`,
    10_000,
    50,
  );
}

/** Resolves once the live feed opened with `headers` at `url` ends (the relay closed it). */
async function feedEnds(url: string, headers: Record<string, string>): Promise<{ opened: number; ended: Promise<void> }> {
  const r = await request(url, { headers });
  const ended = (async () => {
    for await (const chunk of r.body) void chunk;
  })();
  return { opened: r.statusCode, ended };
}

describe('page sessions across relay instances on one JetStream store (real nats-server, two relay processes)', function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  let a: RelayProcess;
  let b: RelayProcess;

  before(async () => {
    nats = await startNats(1);
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    a = await spawnRelay(['--store', nats.urls, '--data', tempDir()], env);
    b = await spawnRelay(['--store', nats.urls, '--data', tempDir()], env);
  });
  after(async () => {
    await a?.stop('SIGKILL');
    await b?.stop('SIGKILL');
    await nats?.stop();
  });

  it('a session signed in at one instance works at the other at once, and signing out at either ends it at both', async () => {
    const s = await signIn(a, ADMIN);
    // The very next request may reach the other instance (round robin): no waiting for it to learn.
    assert.equal(await status(`${b.url}/page/session`, s.headers), 200, 'the session at B right after the sign-in at A');
    assert.equal(await status(`${b.url}/api/deliveries`, s.headers), 200, 'the API at B with the cookie and key');
    assert.equal(await status(`${b.url}/api/deliveries`, { cookie: s.headers.cookie! }), 401, 'the cookie without the tab key is no session at B either');
    const feedAtA = await feedEnds(`${a.url}/page/events`, s.headers);
    assert.equal(feedAtA.opened, 200);

    assert.equal(await signOut(b, s), 200, 'signed out at B');
    assert.equal(await status(`${b.url}/page/session`, s.headers), 401);
    assert.equal(await answers(`${a.url}/page/session`, s.headers, 401), 401, 'signed out at A too');
    assert.equal(await status(`${a.url}/api/deliveries`, s.headers), 401);
    await within(feedAtA.ended, 10_000, () => 'the live feed at A stayed open after the sign-out at B');
  });

  it('the shared store holds neither the token nor the cookie of a session', async () => {
    const s = await signIn(a, ADMIN);
    const id = s.headers.cookie!.split('=')[1]!;
    const nc = await connect({ servers: nats.urls });
    try {
      const kv = await new Kvm(nc).open('SH_SESSIONS');
      const stored: string[] = [];
      for await (const k of await kv.keys()) stored.push(k, (await kv.get(k))?.string() ?? '');
      assert.ok(stored.length > 0, 'the session is in the bucket');
      for (const secret of [ADMIN, id, s.headers['x-page-key']!, s.csrf])
        assert.ok(!stored.some((t) => t.includes(secret)), 'a secret of the session in the store');
    } finally {
      await nc.close();
    }
    await signOut(a, s);
  });

  it('deleting a channel at one instance ends its sessions at every instance, live feeds too', async () => {
    const { token } = await new RelayApi({ baseUrl: a.url, token: ADMIN }).createChannel({ name: 'team', secrets: [SECRET] });
    const s = await signIn(a, token);
    assert.equal(await status(`${b.url}/page/session`, s.headers), 200);
    const feedAtB = await feedEnds(`${b.url}/page/events`, s.headers);
    assert.equal(feedAtB.opened, 200);
    await new RelayApi({ baseUrl: a.url, token: ADMIN }).deleteChannel('team');
    assert.equal(await status(`${a.url}/page/session`, s.headers), 401);
    assert.equal(await answers(`${b.url}/page/session`, s.headers, 401), 401, 'ended at B');
    await within(feedAtB.ended, 10_000, () => 'the live feed at B stayed open after the deletion at A');
  });

  it("a token's session limit counts every instance's sessions: past it, its oldest ends everywhere", async () => {
    const first = await signIn(a, ADMIN);
    // The earlier tests' sessions ended; so this token holds `first` and these.
    for (let i = 1; i < MAX_SESSIONS_PER_TOKEN; i++) await signIn(i % 2 ? b : a, ADMIN);
    assert.equal(await status(`${b.url}/page/session`, first.headers), 200, 'at the limit the oldest still works');
    await signIn(b, ADMIN);
    assert.equal(await answers(`${a.url}/page/session`, first.headers, 401), 401, 'past it the oldest ended at A');
    assert.equal(await answers(`${b.url}/page/session`, first.headers, 401), 401, 'and at B');
  });

  it('without the store, a sign-in or an unknown session is answered 503 with Retry-After, never taken for signed out', async () => {
    const known = await signIn(a, ADMIN);
    await nats.nodes[0]!.kill();
    const r = await request(`${a.url}/page/session`, { method: 'POST', headers: { origin: a.url }, body: JSON.stringify({ token: ADMIN }) });
    const text = await r.body.text();
    assert.equal(r.statusCode, 503, text);
    assert.match(text, /JetStream did not take a new session/);
    assert.ok(Number(r.headers['retry-after']) > 0);
    assert.equal(await status(`${b.url}/page/session`, known.headers), 200, 'a session B knows still works');
    const unheardOf = { cookie: `sh_page=${'x'.repeat(43)}`, 'x-page-key': 'y'.repeat(43) };
    assert.equal(await status(`${b.url}/api/deliveries`, unheardOf), 503, 'one B cannot look up');
  });
});
