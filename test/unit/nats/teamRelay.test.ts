// A team relay beyond one machine (issue 15), as real processes: two `service-hooks relay
// --store nats://…` instances on a three-node JetStream cluster, a load through both, kill -9 of one
// NATS server and of one relay mid-load; every delivery answered 200 is listed by the surviving
// instance, reaches the app, and reaches a `forward` subscriber attached to that instance.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RelayApi, subscribe } from '../../../relay/client';
import { cli, post, signed, spawnRelay, startTarget, tempDir, within, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { request } from 'undici';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startNats, waitForStreamQuorum, type NatsCluster, type NatsNode } from './natsServers';

const SECRET = 'team-relay-secret-0123456789';

function token(data: string): string {
  return readFileSync(join(data, 'token'), 'utf8').trim();
}

async function spawnForward(relayUrl: string, tok: string, to: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [await cli(), 'forward', '--relay', relayUrl.replace('http', 'ws'), '--to', to, '--since', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: tok },
  });
  child.stderr!.resume();
  return child;
}

/** A node that is not the leader of `stream` (its peers' names are the nodes' names). */
async function follower(nats: NatsCluster, stream: string): Promise<NatsNode> {
  const nc = await connect({ servers: nats.urls.split(',') });
  try {
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    return nats.nodes.find((n) => n.name !== info.cluster?.leader)!;
  } finally {
    await nc.close();
  }
}

const ADMIN = 'team-admin-token-0123456789';

/** Two relay instances on one nats-server, sharing the admin token ADMIN; stopped with the suite's relays. */
async function twoInstances(relays: RelayProcess[], run: (a: RelayProcess, b: RelayProcess) => Promise<void>): Promise<void> {
  const single = await startNats(1);
  process.env.SERVICE_HOOKS_RELAY_TOKEN = ADMIN;
  try {
    const a = await spawnRelay(['--store', single.urls, '--data', tempDir()]);
    const b = await spawnRelay(['--store', single.urls, '--data', tempDir()]);
    relays.push(a, b);
    await run(a, b);
  } finally {
    delete process.env.SERVICE_HOOKS_RELAY_TOKEN;
    await single.stop();
  }
}

const bodiesOf = (app: TargetApp) => new Set(app.received.map((r) => r.body.toString()));

describe('team relay on NATS JetStream (three nats-server processes, two relay processes)', function () {
  this.timeout(180_000);
  let nats: NatsCluster;
  let app: TargetApp;
  let local: TargetApp;
  const relays: RelayProcess[] = [];
  let forwarder: ChildProcess | undefined;

  before(async () => {
    nats = await startNats(3);
    app = await startTarget();
    local = await startTarget();
  });
  after(async () => {
    forwarder?.kill('SIGKILL');
    for (const r of relays) await r.stop('SIGKILL');
    await app?.close();
    await local?.close();
    await nats?.stop();
  });

  it('loses nothing acknowledged when a NATS server and a relay are killed mid-load; no quorum answers 503', async () => {
    const dataA = tempDir();
    const dataB = tempDir();
    const common = ['--store', nats.urls, '--secret', SECRET, '--forward', app.url, '--forward-timeout', '2s', '--time-scale', '1000'];
    const a = await spawnRelay([...common, '--data', dataA]);
    const b = await spawnRelay([...common, '--data', dataB]);
    relays.push(a, b);
    forwarder = await spawnForward(b.url, token(dataB), local.url);

    const acknowledged = new Map<string, number>();
    let aAlive = true;
    // The server killed is one the deliveries stream does not lead from: a leader's death adds a
    // Raft election whose length, on a loaded 2-core machine, is minutes of 503s rather than seconds.
    const victim = await follower(nats, 'SH_DELIVERIES');
    const live = nats.nodes.filter((n) => n !== victim).map((n) => n.url);
    for (let i = 0; i < 150; i++) {
      if (i === 50) await victim.kill();
      if (i === 100) {
        await a.stop('SIGKILL');
        aAlive = false;
      }
      const body = JSON.stringify({ i });
      const via = aAlive && i % 2 === 0 ? a : b;
      const r = await post(`${via.url}/hooks/default`, body, signed(SECRET, body)).catch(() => undefined);
      if (r?.status === 200) acknowledged.set(body, (r.json as { seq: number }).seq);
      else {
        assert.ok(!r || r.status === 503, `only 503 or a cut connection when not acknowledged, got ${r?.status}`);
        // Like the service, send on once the stream has a leader again (two live servers: one current peer).
        if (r?.status === 503) await waitForStreamQuorum(live, 'SH_DELIVERIES', 2);
      }
    }
    assert.ok(acknowledged.size >= 100, `most deliveries acknowledged (${acknowledged.size})`);

    const api = new RelayApi({ baseUrl: b.url, token: token(dataB) });
    const listed = new Set((await api.listDeliveries({ limit: 1000 })).deliveries.map((d) => d.seq));
    for (const [body, seq] of acknowledged) assert.ok(listed.has(seq), `seq ${seq} (${body}) listed by the surviving instance`);
    await app.waitUntil(() => [...acknowledged.keys()].every((body) => bodiesOf(app).has(body)));
    await local.waitUntil(() => [...acknowledged.keys()].every((body) => bodiesOf(local).has(body)));

    await nats.nodes.find((n) => n !== victim)!.kill(); // two of three gone: no quorum
    const body = JSON.stringify({ quorum: 'lost' });
    assert.equal((await post(`${b.url}/hooks/default`, body, signed(SECRET, body))).status, 503);
  });

  // Issue 42 item 8: what it says is what it does: the port answers at once (not ready, in the
  // store's words, never "loading the journal"), and it serves once JetStream answers.
  it('a relay started before the cluster is reachable waits, says so, and serves once it is', async () => {
    const late = await startNats(1); // its port, then nothing listening there until it restarts
    const port = late.nodes[0]!.port;
    await late.nodes[0]!.kill();
    const child = spawn(process.execPath, [await cli(), 'relay', '--port', '0', '--store', `nats://127.0.0.1:${port}`, '--data', tempDir()], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c));
    const said = new Promise<number>((resolve) =>
      child.stderr!.on('data', (c: Buffer) => {
        err += c;
        const port = /port (\d+) answers while NATS JetStream is reached/.exec(err)?.[1];
        if (port && /connecting to NATS at 127\.0\.0\.1:\d+/.test(err)) resolve(Number(port));
      }),
    );
    const listening = new Promise<void>((resolve) => child.stdout!.on('data', () => /relay listening on/.test(out) && resolve()));
    try {
      const relayPort = await within(said, 30_000, () => `the relay did not say its port answers:\n${err}`);
      assert.doesNotMatch(out, /listening/);
      const at = `http://127.0.0.1:${relayPort}`;
      const healthz = await request(`${at}/healthz`);
      assert.equal(healthz.statusCode, 200);
      assert.deepEqual(await healthz.body.json(), { ok: true, starting: true });
      const readyz = await request(`${at}/readyz`);
      assert.equal(readyz.statusCode, 503);
      assert.deepEqual(await readyz.body.json(), { ready: false, error: 'relay is starting: connecting to NATS JetStream' });
      const posted = await request(`${at}/hooks/default`, { method: 'POST', body: '{}' });
      assert.equal(posted.statusCode, 503);
      assert.equal(posted.headers['retry-after'], '1');
      await posted.body.text();
      await late.nodes[0]!.start();
      try {
        await listening;
      } finally {
        child.kill('SIGKILL');
        await late.stop();
      }
    } finally {
      child.kill('SIGKILL');
      await late.stop();
    }
  });

  it('channels created at one instance are accepted by the other; deleting one revokes its token everywhere', async () => {
    await twoInstances(relays, async (a, b) => {
      const created = await new RelayApi({ baseUrl: a.url, token: ADMIN }).createChannel({ name: 'alice', secrets: [SECRET] });
      const body = JSON.stringify({ to: 'alice' });
      // B learns of the channel through the store's watch: ask until it accepts (bounded).
      let status = 0;
      for (let i = 0; i < 200 && status !== 200; i++) status = (await post(`${b.url}/hooks/alice`, body, signed(SECRET, body))).status;
      assert.equal(status, 200, 'the other instance accepts deliveries for the channel');
      const atB = new RelayApi({ baseUrl: b.url, token: created.token });
      assert.deepEqual(
        (await atB.listDeliveries({})).deliveries.map((d) => d.channel),
        ['alice'],
        'the channel token works at the other instance',
      );
      await new RelayApi({ baseUrl: b.url, token: ADMIN }).deleteChannel('alice');
      let refused = false;
      for (let i = 0; i < 200 && !refused; i++)
        refused = await new RelayApi({ baseUrl: a.url, token: created.token }).listDeliveries({}).then(
          () => false,
          () => true,
        );
      assert.ok(refused, "the deleted channel's token is refused by the instance that created it");
      assert.equal((await post(`${a.url}/hooks/alice`, body, signed(SECRET, body))).status, 404);
    });
  });

  it('a subscriber that reconnects to the other instance resumes by seq with no gap and no duplicate', async () => {
    await twoInstances(relays, async (a, b) => {
      const send = async (via: RelayProcess, n: number) => {
        for (let i = 0; i < n; i++) assert.equal((await post(`${via.url}/hooks/default`, JSON.stringify({ i }))).status, 200);
      };
      await send(a, 6);
      const seen: number[] = [];
      const first = await new Promise<number>((resolve) => {
        const sub = subscribe({
          url: a.url.replace('http', 'ws'),
          token: ADMIN,
          since: 0,
          onDelivery: (d) => {
            seen.push(d.seq);
            if (seen.length === 3) {
              sub.close();
              resolve(d.seq);
            }
          },
        });
      });
      await send(b, 4);
      await new Promise<void>((resolve) => {
        const sub = subscribe({
          url: b.url.replace('http', 'ws'),
          token: ADMIN,
          since: first,
          onDelivery: (d) => {
            seen.push(d.seq);
            if (seen.length === 10) {
              sub.close();
              resolve();
            }
          },
        });
      });
      assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });
  });
});
