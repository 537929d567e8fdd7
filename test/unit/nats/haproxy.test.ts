// Pins issue 42 item 10: docs/team-relay.md's haproxy configuration, run as written (./haproxy.ts)
// in front of two relays of the page's safe set-up (three nats-servers with TLS and a password,
// relays with --public and TLS; ./docExample.ts), round robin with no stickiness. A page session
// signed in through it works on every request while both instances answer them, and signing out
// ends it everywhere; a replay to subscribers asked of either instance reaches a `forward`
// connected through the balancer; that `forward` keeps getting every delivery answered 200, once
// each, after the instance it was connected to is killed with SIGKILL.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { sign } from '../../../src/core/signing';
import { cli, relayProcesses, runCliBare, spawnRelay, startTarget, tempDir, within, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { exampleCerts, exampleRelay, startExampleNats, type ExampleCerts, type ExampleNats, type ExampleRelaySetup } from './docExample';
import { sample } from '../relay/support/metricsText';
import { pollUntil } from '../../support/poll';
import { startHaproxy, type Haproxy, type ServerStat } from './haproxy';

describe("docs/team-relay.md's haproxy in front of two relays (3 nats-servers, round robin)", function () {
  this.timeout(180_000);
  const procs = relayProcesses();
  let certs: ExampleCerts;
  let nats: ExampleNats;
  let setup: ExampleRelaySetup;
  let relays: RelayProcess[];
  let lb: Haproxy;
  let https: Agent;
  let app: TargetApp;
  let forward: { child: ChildProcess; output: () => string } | undefined;

  before(async () => {
    certs = exampleCerts();
    nats = await startExampleNats(certs);
    setup = exampleRelay(certs, nats);
    https = new Agent({ connect: { ca: readFileSync(certs.ca) } });
    // The page's relay command with its additions behind the balancer: --trust-proxy, and the
    // operator's test address ("Your own test sends").
    const extra = ['--trust-proxy', '127.0.0.1', '--allow-cidr', 'service', '--allow-cidr', '127.0.0.1/32'];
    relays = [await spawnRelay(setup.args(tempDir(), extra), setup.env), await spawnRelay(setup.args(tempDir(), extra), setup.env)];
    procs.push(...relays);
    lb = await startHaproxy([relays[0]!.port, relays[1]!.port], certs);
    await bothUp();
    app = await startTarget();
  });

  after(async () => {
    forward?.child.kill('SIGKILL');
    await lb?.stop();
    for (const p of procs.splice(0)) await p.stop('SIGKILL');
    nats?.stop();
    await app?.close();
    await https?.close();
  });

  /** Until haproxy's health checks (/readyz) have both relays UP (bounded). */
  async function bothUp(): Promise<void> {
    let seen: Record<string, ServerStat> = {};
    const up = async () => {
      seen = await lb.servers().catch(() => ({}));
      return seen.relay1?.status === 'UP' && seen.relay2?.status === 'UP' ? true : undefined;
    };
    await pollUntil('haproxy has both relays UP', up, () => `${JSON.stringify(seen)}\n${lb.output()}`);
  }

  async function call(
    path: string,
    method: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<{ status: number; json: Record<string, unknown>; setCookie: string }> {
    const res = await request(`${lb.url}${path}`, { method: method as 'GET', headers, body, dispatcher: https });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {},
      setCookie: String(res.headers['set-cookie']),
    };
  }

  const signedHook = (body: string) => ({
    'content-type': 'application/json',
    'x-service-event': 'ping',
    'x-service-signature': sign(setup.secrets.payments!, body),
  });

  /** Sessions each relay has taken from haproxy. */
  async function taken(): Promise<number[]> {
    const s = await lb.servers();
    return [s.relay1!.stot, s.relay2!.stot];
  }

  it('a page session signed in through it works on every request while both instances answer; signing out ends it everywhere', async () => {
    const origin = { origin: lb.url };
    const signIn = await call('/page/session', 'POST', origin, JSON.stringify({ token: setup.adminToken }));
    assert.equal(signIn.status, 200, JSON.stringify(signIn.json));
    assert.match(signIn.setCookie, /^__Host-sh_page=.*; Secure$/, 'the Secure __Host- cookie over HTTPS');
    const page = { cookie: signIn.setCookie.split(';')[0]!, 'x-page-key': String(signIn.json.key) };
    const before = await taken();
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) answers.push((await call(i % 2 ? '/api/deliveries' : '/page/session', 'GET', page)).status);
    const after = await taken();
    assert.deepEqual(answers, Array<number>(10).fill(200), 'every request of the session through the balancer');
    assert.ok(after[0]! > before[0]! && after[1]! > before[1]!, `both instances answered: sessions ${before.join(',')} → ${after.join(',')}`);

    const out = await call('/page/session', 'DELETE', { ...page, ...origin, 'x-csrf-token': String(signIn.json.csrf) });
    assert.equal(out.status, 200);
    // Ended at both: asked of each instance directly, then through the balancer (bounded: "within moments").
    for (const relay of relays) {
      let status = 0;
      const signedOut = async () => {
        const r = await request(`https://127.0.0.1:${relay.port}/page/session`, { headers: page, dispatcher: https });
        await r.body.dump();
        return (status = r.statusCode) === 401 ? true : undefined;
      };
      await pollUntil(`signed out at ${relay.url}`, signedOut, () => `answered ${status}`, 10_000, 50);
    }
    const afterOut: number[] = [];
    for (let i = 0; i < 4; i++) afterOut.push((await call('/page/session', 'GET', page)).status);
    assert.deepEqual(afterOut, [401, 401, 401, 401]);
  });

  it('a replay to subscribers asked of either instance reaches the forward connected through the balancer', async () => {
    const child = spawn(process.execPath, [await cli(), 'forward', '--relay', lb.url.replace('https', 'wss'), '--to', app.url], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: setup.env,
    });
    let out = '';
    const connected = new Promise<void>((resolve) => {
      const keep = (c: Buffer) => ((out += c.toString()), /: connected \(relay at seq/.test(out) && resolve());
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
    });
    forward = { child, output: () => out };
    await within(connected, 30_000, () => `forward never connected:\n${out}`);
    const body = JSON.stringify({ replayed: 'from either instance' });
    const times = () => app.received.filter((r) => r.body.toString() === body).length;
    const posted = await call('/hooks/payments', 'POST', signedHook(body), body);
    assert.equal(posted.status, 200);
    const seq = Number(posted.json.seq);
    await within(
      app.waitUntil(() => times() >= 1),
      30_000,
      () => `the delivery never reached the app:\n${out}`,
    );
    const got = times();
    for (const [i, relay] of relays.entries()) {
      const r = await runCliBare(['replay', String(seq), '--to', 'subscribers', '--relay', `https://127.0.0.1:${relay.port}`], {
        SERVICE_HOOKS_RELAY_TOKEN: setup.adminToken,
        NODE_EXTRA_CA_CERTS: certs.ca,
      });
      assert.equal(r.code, 0, `replay asked of relay ${i + 1}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, new RegExp(`sent #${seq} again to 1 subscriber\\b`));
      await within(
        app.waitUntil(() => times() === got + i + 1),
        30_000,
        () => `the replay asked of relay ${i + 1} never reached the app:\n${out}`,
      );
    }
  });

  it('the forward through it gets every delivery answered 200, once, after the instance it was connected to is killed (SIGKILL)', async () => {
    assert.ok(forward, 'the forward of the previous test');
    // The instance the forward is connected to, by the relays' own count of their subscribers.
    const connected = await Promise.all(
      relays.map(async (relay) => {
        const r = await request(`https://127.0.0.1:${relay.port}/metrics`, { headers: { authorization: `Bearer ${setup.adminToken}` }, dispatcher: https });
        return sample(await r.body.text(), 'relay_subscribers_connected');
      }),
    );
    assert.deepEqual([...connected].sort(), [0, 1], `one instance holds the forward's WebSocket: ${connected.join(', ')}`);
    const holder = connected.indexOf(1);
    const bodies = Array.from({ length: 40 }, (_, i) => JSON.stringify({ through: 'haproxy', i }));
    const answered: string[] = [];
    for (const [i, body] of bodies.entries()) {
      if (i === 20) await relays[holder]!.stop('SIGKILL');
      // A post cut off with the instance is not answered: the service would send it again.
      const status = await call('/hooks/payments', 'POST', signedHook(body), body).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) answered.push(body);
    }
    // A refused connection is sent to the other instance; a post already sent on a kept-alive
    // connection to the killed one may get 502 or be cut off (haproxy does not send a POST twice).
    assert.ok(answered.length >= 38, `haproxy sent the posts around the killed instance: ${answered.length} of 40 answered 200`);
    const count = (body: string) => app.received.filter((r) => r.body.toString() === body).length;
    await within(
      app.waitUntil(() => answered.every((b) => count(b) >= 1)),
      60_000,
      () => `missing at the app: ${answered.filter((b) => count(b) === 0).join(' ')}\n${forward!.output().slice(-3000)}`,
    );
    assert.deepEqual(
      answered.filter((b) => count(b) > 1),
      [],
      'none twice',
    );
    assert.match(forward.output(), /: connected \(relay at seq[\s\S]*: connected \(relay at seq/, 'it reconnected through the balancer');
  });
});
