// Issue 42 item 5 on two relay processes sharing one real JetStream store: `forward` keys its
// resume point by the relay's identity (the same at both instances), fails over from a killed
// instance to the other at once, and a restart pointed at the other instance resumes without
// posting anything again. Every delivery answered 200 reaches the app once: none missed, none twice.
// The walk goes on over transports and tokens: instances served over plain HTTP and over TLS in one
// --relay list, failed over both ways (http → tls, tls → http) with the admin token and a channel
// token at once (B's CA trusted through NODE_EXTRA_CA_CERTS, or --ca), an instance whose CA is not
// trusted (said, and passed over for the next), --channel '*' listing the channels over TLS, and a
// channel deleted while its token's forward runs.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { subscribe } from '../../../relay/client';
import { RelayApi } from '../../../relay/client';
import { Agent, request } from 'undici';
import { post, signed, spawnRelay, startTarget, tempDir, within, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { makeTestCerts, type TestCerts } from '../relay/support/certs';
import { bare, forwarder, processesPerTest, stampOf } from '../relay/support/forwarderProcess';
import { startNats, type NatsCluster } from './natsServers';

const ADMIN = 'forward-failover-admin-token-0123456789';

/** The identity a relay's hello names, read with a plain subscription. */
async function identityOf(relay: RelayProcess, ca?: Buffer): Promise<string | undefined> {
  return new Promise((resolve) => {
    const sub = subscribe({
      url: relay.url.replace('http', 'ws'),
      token: ADMIN,
      ...(ca ? { ca: [ca] } : {}),
      bodies: false,
      onDelivery: () => undefined,
      onState: (s) => {
        if (s.state !== 'open') return;
        sub.close();
        resolve(s.relay);
      },
    });
  });
}

describe('forward over two instances of one JetStream relay: one resume point, failover at once', function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  let app: TargetApp;
  let a: RelayProcess;
  let b: RelayProcess;
  const { children } = processesPerTest();

  before(async () => {
    nats = await startNats(1);
    app = await startTarget();
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    a = await spawnRelay(['--store', nats.urls, '--data', tempDir()], env);
    b = await spawnRelay(['--store', nats.urls, '--data', tempDir()], env);
  });
  after(async () => {
    await a?.stop('SIGKILL');
    await b?.stop('SIGKILL');
    await app?.close();
    await nats?.stop();
  });

  /** Posts `bodies` to `relay`, each answered 200. */
  const send = async (relay: RelayProcess, bodies: string[]) => {
    for (const body of bodies) assert.equal((await post(`${relay.url}/hooks/default`, body)).status, 200, body);
  };
  const times = (body: string) => app.received.filter((r) => r.body.toString() === body).length;
  const batch = (name: string, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ [name]: i }));

  it('names the same identity at both instances: the stream, its cluster and its creation', async () => {
    const [atA, atB] = await Promise.all([identityOf(a), identityOf(b)]);
    assert.match(atA ?? '', /^jetstream:[^/]+\/SH_DELIVERIES@\d{4}-/);
    assert.equal(atB, atA);
  });

  it('A killed: goes on at B at once, every delivery posted once; restarted at B alone it resumes without posting again', async () => {
    const env = { XDG_STATE_HOME: tempDir(), SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    const ws = (r: RelayProcess) => r.url.replace('http', 'ws');
    const f = await forwarder(['--relay', `${ws(a)},${ws(b)}`, '--to', app.url, '--output', 'text'], env);
    children.push(f.child);
    await within(f.saw(/connected/), 30_000, f.out);
    const before = batch('beforeKill', 5);
    await send(a, before);
    await within(
      app.waitUntil(() => before.every((x) => times(x) === 1)),
      30_000,
      () => `the app got ${app.received.length}:\n${f.out()}`,
    );

    await a.stop('SIGKILL');
    const during = batch('afterKill', 5);
    await send(b, during);
    await within(
      app.waitUntil(() => during.every((x) => times(x) === 1)),
      30_000,
      () => `after the kill the app got ${app.received.length}:\n${f.out()}`,
    );
    const bPort = new URL(b.url).port;
    assert.match(bare(f.stderr()), new RegExp(`going on at once at 127\\.0\\.0\\.1:${bPort}`), f.stderr());
    // Each line names the time and the relay it came through: before the kill A, after it B.
    assert.match(f.stdout(), new RegExp(`${stampOf(a.url)}#\\d+ default - → 200`, 'm'));
    assert.match(f.stdout(), new RegExp(`${stampOf(b.url)}#\\d+ default - → 200`, 'm'));
    f.child.kill('SIGTERM');
    assert.equal(await f.exited, 0, f.out());

    // One state file, named by the relay's identity and scope, recording both.
    const dir = join(env.XDG_STATE_HOME, 'service-hooks', 'forward');
    const files = readdirSync(dir).filter((n) => n.endsWith('.json'));
    assert.equal(files.length, 1, files.join(', '));
    assert.match(files[0]!, /^relay-[0-9a-f]{8}-all-[0-9a-f]{12}\.json$/);
    const kept = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as { scope: string; relay: string; lastSeq: number };
    assert.equal(kept.scope, 'admin');
    assert.equal(kept.relay, await identityOf(b));

    const later = batch('whileStopped', 3);
    await send(b, later);
    const again = await forwarder(['--relay', ws(b), '--to', app.url, '--output', 'text'], env);
    children.push(again.child);
    await within(again.saw(new RegExp(`resuming after seq ${kept.lastSeq}\\b`)), 30_000, again.out);
    await within(
      app.waitUntil(() => later.every((x) => times(x) === 1)),
      30_000,
      () => `after the restart the app got ${app.received.length}:\n${again.out()}`,
    );
    again.child.kill('SIGTERM');
    assert.equal(await again.exited, 0, again.out());
    for (const body of [...before, ...during, ...later]) assert.equal(times(body), 1, `${body}: posted once`);
    assert.equal(app.received.length, before.length + during.length + later.length, 'nothing else posted');
  });

  it('keeps its identity across a restart of nats-server and of the relay: the resume point stays valid', async () => {
    const before = await identityOf(b);
    await nats.nodes[0]!.kill();
    await nats.nodes[0]!.start();
    const c = await spawnRelay(['--store', nats.urls, '--data', tempDir()], { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
    try {
      assert.equal(await identityOf(c), before);
    } finally {
      await c.stop('SIGKILL');
    }
  });
});

describe('the identity on a three-node cluster: the same at instances on different servers', function () {
  this.timeout(120_000);
  let nats: NatsCluster | undefined;
  const relays: RelayProcess[] = [];
  after(async () => {
    for (const r of relays) await r.stop('SIGKILL');
    await nats?.stop();
  });

  it("names the cluster, and each instance (each on its own server) says the stream leader's word", async () => {
    nats = await startNats(3);
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    for (const node of [nats.nodes[0]!, nats.nodes[2]!]) relays.push(await spawnRelay(['--store', node.url, '--data', tempDir()], env));
    const [one, two] = await Promise.all(relays.map((r) => identityOf(r)));
    assert.match(one ?? '', /^jetstream:[\w-]+\/SH_DELIVERIES@/);
    assert.doesNotMatch(one!, /^jetstream:-\//, 'a cluster names itself');
    assert.equal(two, one);
  });
});

describe('forward --relay over instances served over plain HTTP and over TLS: fail-over both ways, each kind of token', function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  let certs: TestCerts;
  let https: Agent;
  /** A (plain HTTP), B (TLS), C (plain HTTP): three instances of one relay on one JetStream stream. */
  let a: RelayProcess;
  let b: RelayProcess;
  let c: RelayProcess;
  const { children, apps } = processesPerTest();
  const SECRET = 'mixed-transport-secret-0123456789';

  before(async () => {
    nats = await startNats(1);
    certs = makeTestCerts();
    https = new Agent({ connect: { ca: certs.ca } });
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    a = await spawnRelay(['--store', nats.urls, '--data', tempDir()], env);
    b = await spawnRelay(['--store', nats.urls, '--data', tempDir(), '--tls-cert', certs.serverCert, '--tls-key', certs.serverKey], env);
    c = await spawnRelay(['--store', nats.urls, '--data', tempDir()], env);
  });
  after(async () => {
    for (const r of [a, b, c]) await r?.stop('SIGKILL');
    await https?.close();
    await nats?.stop();
  });

  const ws = (r: RelayProcess) => r.url.replace(/^http/, 'ws');
  const api = (r: RelayProcess) => new RelayApi({ baseUrl: r.url, token: ADMIN, ...(r.url.startsWith('https:') ? { dispatcher: https } : {}) });
  /** Posts each body to `channel` at `relay` (signed for a channel with a secret), each answered 200. */
  const send = async (relay: RelayProcess, channel: string, bodies: string[], secret?: string) => {
    for (const body of bodies) {
      const r = await request(`${relay.url}/hooks/${channel}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? signed(secret, body) : {}) },
        body,
        ...(relay.url.startsWith('https:') ? { dispatcher: https } : {}),
      });
      const text = await r.body.text();
      assert.equal(r.statusCode, 200, `${body} at ${relay.url}: ${text}`);
    }
  };
  const batch = (name: string, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ [name]: i }));
  const times = (app: TargetApp, body: string) => app.received.filter((r) => r.body.toString() === body).length;
  /** Resolves once `app` got each of `bodies` exactly once (else says what it got, and what `f` printed). */
  const gotOnce = (app: TargetApp, bodies: string[], f: { out: () => string }) =>
    within(
      app.waitUntil(() => bodies.every((x) => times(app, x) === 1)),
      30_000,
      () => `the app got ${app.received.length}:\n${f.out()}`,
    );

  it('names the same identity over HTTP and over TLS', async () => {
    const [atA, atB, atC] = await Promise.all([identityOf(a), identityOf(b, certs.ca), identityOf(c)]);
    assert.match(atA ?? '', /^jetstream:/);
    assert.deepEqual([atB, atC], [atA, atA]);
  });

  it("a channel deleted while its token's forward runs: a clear line, exit 1, no retry loop", async () => {
    const { token } = await api(a).createChannel({ name: 'doomed', secrets: [SECRET] });
    const app = await startTarget();
    apps.push(app);
    // Connected to B (TLS) first, A (plain HTTP) next; the channel is deleted at C.
    const f = await forwarder(['--relay', `${ws(b)},${ws(a)}`, '--to', app.url, '--output', 'text'], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: token,
      NODE_EXTRA_CA_CERTS: certs.caCert,
    });
    children.push(f.child);
    await within(f.saw(/connected/), 30_000, f.out);
    const before = batch('doomedBefore', 2);
    await send(a, 'doomed', before, SECRET);
    await gotOnce(app, before, f);
    await api(c).deleteChannel('doomed');
    assert.equal(await within(f.exited, 30_000, () => `forward still runs after the deletion:\n${f.out()}`), 1, f.out());
    assert.match(f.stderr(), /HTTP 401\): the token is not accepted \(wrong, or its channel was deleted\)/, f.stderr());
    const attempts = f.stderr().match(/going on at once|reconnecting in/g) ?? [];
    assert.ok(attempts.length <= 1, `one fail-over at most, no retry loop:\n${f.stderr()}`);
  });

  it('an instance whose CA is not trusted here: forward says so, with the fix, and goes on at the next address', async () => {
    const app = await startTarget();
    apps.push(app);
    // B (TLS) first, its CA not given; C (plain HTTP) next.
    const f = await forwarder(['--relay', `${ws(b)},${ws(c)}`, '--to', app.url, '--output', 'text'], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: ADMIN,
    });
    children.push(f.child);
    await within(
      f.saw(
        new RegExp(
          `certificate at wss://127\\.0\\.0\\.1:${b.port}\\S* is not trusted \\(\\w+\\): set NODE_EXTRA_CA_CERTS .*--ca FILE; going on at once at 127\\.0\\.0\\.1:${c.port}`,
        ),
      ),
      30_000,
      f.out,
    );
    // A first start takes only what comes after it connected: post once it did, at C.
    await within(f.saw(new RegExp(`127\\.0\\.0\\.1:${c.port} forward: every channel: connected`)), 30_000, f.out);
    const body = batch('pastUntrusted', 1);
    await send(c, 'default', body);
    await gotOnce(app, body, f);
    f.child.kill('SIGTERM');
    assert.equal(await f.exited, 0, f.out());
  });

  it("--channel '*' at B (tls): without its CA a clear exit 1; with --ca the channel list is read over TLS too", async () => {
    await api(a).createChannel({ name: 'listed', secrets: [SECRET] });
    const app = await startTarget();
    apps.push(app);
    const untrusted = await forwarder(['--relay', ws(b), '--to', app.url, '--output', 'text', '--channel', '*'], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: ADMIN,
    });
    children.push(untrusted.child);
    assert.equal(await untrusted.exited, 1, untrusted.out());
    assert.match(
      untrusted.stderr(),
      /cannot list the relay's channels for --channel '\*': the relay's certificate at wss:\/\/127\.0\.0\.1:\d+ is not trusted \(\w+\): set NODE_EXTRA_CA_CERTS .*, or pass it with --ca FILE/,
    );
    // B alone: the list must come over TLS (with A beside it, a failed list at B would be asked of A).
    const f = await forwarder(['--relay', ws(b), '--to', app.url, '--output', 'text', '--channel', '*', '--ca', certs.caCert], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: ADMIN,
    });
    children.push(f.child);
    await within(f.saw(/channel listed: connected/), 30_000, f.out);
    const body = batch('listed', 1);
    await send(c, 'listed', body, SECRET);
    await gotOnce(app, body, f);
    f.child.kill('SIGTERM');
    assert.equal(await f.exited, 0, f.out());
  });

  it('A (http) killed mid-stream: on at B (tls) at once; B killed: on at C (http) at once; admin and channel token forwards, every delivery once', async () => {
    const { token } = await api(b).createChannel({ name: 'team', secrets: [SECRET] });
    const adminApp = await startTarget();
    const teamApp = await startTarget();
    apps.push(adminApp, teamApp);
    const relays = `${ws(a)},${ws(b)},${ws(c)}`;
    // The admin token's forward trusts B's CA through NODE_EXTRA_CA_CERTS, the channel token's through --ca.
    const admin = await forwarder(['--relay', relays, '--to', adminApp.url, '--output', 'text'], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: ADMIN,
      NODE_EXTRA_CA_CERTS: certs.caCert,
    });
    const team = await forwarder(['--relay', relays, '--to', teamApp.url, '--output', 'text', '--ca', certs.caCert], {
      XDG_STATE_HOME: tempDir(),
      SERVICE_HOOKS_RELAY_TOKEN: token,
    });
    children.push(admin.child, team.child);
    const out = () => `admin:\n${admin.out()}\nteam:\n${team.out()}`;
    await within(Promise.all([admin.saw(/connected/), team.saw(/connected/)]), 30_000, out);
    const posted: { all: string[]; team: string[] } = { all: [], team: [] };
    /**
     * One round at `relay`: four to default (the admin's only) and four to team (both), in turn, with
     * `midway` (a kill) after the first two pairs, while the forwards are busy; awaited at both apps.
     */
    const round = async (relay: RelayProcess, name: string, midway?: () => Promise<unknown>) => {
      const toDefault = batch(`${name}Default`, 4);
      const toTeam = batch(`${name}Team`, 4);
      for (const [i, body] of toDefault.entries()) {
        if (i === 2) await midway?.();
        await send(relay, 'default', [body]);
        await send(relay, 'team', [toTeam[i]!], SECRET);
        posted.all.push(body, toTeam[i]!);
        posted.team.push(toTeam[i]!);
      }
      await within(
        Promise.all([
          adminApp.waitUntil(() => posted.all.every((x) => times(adminApp, x) >= 1)),
          teamApp.waitUntil(() => posted.team.every((x) => times(teamApp, x) >= 1)),
        ]),
        30_000,
        () => `${name}: the admin's app got ${adminApp.received.length}, the team's ${teamApp.received.length}:\n${out()}`,
      );
    };
    await round(a, 'atA');
    await round(c, 'whileAdies', () => a.stop('SIGKILL'));
    await round(b, 'atB');
    await round(c, 'whileBdies', () => b.stop('SIGKILL'));
    await round(c, 'atC');
    for (const [name, f] of [
      ['admin', admin],
      ['team', team],
    ] as const) {
      const text = bare(f.stderr());
      assert.match(text, new RegExp(`going on at once at 127\\.0\\.0\\.1:${b.port}`), `${name}: http → tls\n${text}`);
      assert.match(text, new RegExp(`going on at once at 127\\.0\\.0\\.1:${c.port}`), `${name}: tls → http\n${text}`);
      assert.match(f.stdout(), new RegExp(`${stampOf(b.url)}#\\d+ .*→ 200`, 'm'), `${name}: a line through B`);
      f.child.kill('SIGTERM');
      assert.equal(await f.exited, 0, f.out());
    }
    for (const body of posted.all) assert.equal(times(adminApp, body), 1, `${body}: once at the admin's app`);
    for (const body of posted.team) assert.equal(times(teamApp, body), 1, `${body}: once at the team's app`);
    assert.equal(adminApp.received.length, posted.all.length, 'nothing else posted to the admin app');
    assert.equal(teamApp.received.length, posted.team.length, 'only its own channel to the team app');
  });
});
