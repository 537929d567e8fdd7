// Issue 42 item 5 on two relay processes sharing one real JetStream store: `forward` keys its
// resume point by the relay's identity (the same at both instances), fails over from a killed
// instance to the other at once, and a restart pointed at the other instance resumes without
// posting anything again. Every delivery answered 200 reaches the app once: none missed, none twice.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { subscribe } from '../../../relay/client';
import { post, spawnRelay, startTarget, tempDir, within, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { bare, forwarder, processesPerTest, stampOf } from '../relay/support/forwarderProcess';
import { startNats, type NatsCluster } from './natsServers';

const ADMIN = 'forward-failover-admin-token-0123456789';

/** The identity a relay's hello names, read with a plain subscription. */
async function identityOf(relay: RelayProcess): Promise<string | undefined> {
  return new Promise((resolve) => {
    const sub = subscribe({
      url: relay.url.replace('http', 'ws'),
      token: ADMIN,
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
    const [one, two] = await Promise.all(relays.map(identityOf));
    assert.match(one ?? '', /^jetstream:[\w-]+\/SH_DELIVERIES@/);
    assert.doesNotMatch(one!, /^jetstream:-\//, 'a cluster names itself');
    assert.equal(two, one);
  });
});
