// Pins issue 42's "instances as one service" items on two relay processes sharing one JetStream
// store: deleting a channel at one instance closes its `forward` connected to the other (item 4);
// a replay to subscribers asked of one instance reaches a `forward` connected to the other (item 3);
// the instances' forward-attempt counters add up to the forwards the app got (item 6).
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { RelayApi } from '../../../relay/client';
import { cli, post, runCliBare, spawnRelay, startTarget, tempDir, within, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { sample, scrape } from '../relay/support/metricsText';
import { startNats, type NatsCluster } from './natsServers';

const ADMIN = 'one-service-admin-token-0123456789';
const SECRET = 'one-service-secret-0123456789';

interface Forward {
  child: ChildProcess;
  output: () => string;
  /** Resolves once its stderr matches `re` (bounded by the caller). */
  says(re: RegExp): Promise<void>;
}

async function spawnForward(relay: RelayProcess, token: string, to: string, extra: string[] = []): Promise<Forward> {
  const child = spawn(process.execPath, [await cli(), 'forward', '--relay', relay.url.replace('http', 'ws'), '--to', to, '--since', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: token },
  });
  let out = '';
  const waiters: (() => void)[] = [];
  const keep = (c: Buffer) => ((out += c.toString()), waiters.forEach((w) => w()));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    child,
    output: () => out,
    says: (re) =>
      new Promise((resolve) => {
        const check = () => re.test(out) && resolve();
        waiters.push(check);
        check();
      }),
  };
}

describe('two relay instances on one JetStream store act as one service', function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  let app: TargetApp;
  /** The relays' own forward target (--forward). */
  let shared: TargetApp;
  let a: RelayProcess;
  let b: RelayProcess;
  const forwards: ChildProcess[] = [];

  before(async () => {
    nats = await startNats(1);
    app = await startTarget();
    shared = await startTarget();
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    const args = ['--store', nats.urls, '--forward', shared.url];
    a = await spawnRelay([...args, '--data', tempDir()], env);
    b = await spawnRelay([...args, '--data', tempDir()], env);
  });
  after(async () => {
    for (const f of forwards) f.kill('SIGKILL');
    await a?.stop('SIGKILL');
    await b?.stop('SIGKILL');
    await app?.close();
    await shared?.close();
    await nats?.stop();
  });

  it("deleting a channel at one instance closes its forward connected to the other, which exits naming the token's refusal", async () => {
    const created = await new RelayApi({ baseUrl: a.url, token: ADMIN }).createChannel({ name: 'gone', secrets: [SECRET] });
    // B learns of the channel through the shared store: its token is accepted there once it has.
    const atB = new RelayApi({ baseUrl: b.url, token: created.token });
    for (let i = 0; ; i++) {
      if (
        await atB.listDeliveries({}).then(
          () => true,
          () => false,
        )
      )
        break;
      assert.ok(i < 200, 'the channel reached the other instance');
    }
    const f = await spawnForward(b, created.token, app.url);
    forwards.push(f.child);
    await within(f.says(/: connected \(relay at seq/), 30_000, () => `forward never connected:\n${f.output()}`);

    await new RelayApi({ baseUrl: a.url, token: ADMIN }).deleteChannel('gone');
    const [code] = (await within(
      once(f.child, 'exit'),
      30_000,
      () => `forward still running 30 s after the deletion:\n${f.output()}\nrelay B:\n${b.stderr().slice(-2000)}`,
    )) as [number];
    assert.equal(code, 1, 'forward exits 1');
    assert.match(f.output(), /HTTP 401.*channel was deleted/, f.output());
    assert.match(b.stderr(), /channel 'gone' deleted at another relay instance/, 'relay B says why it closed the stream');
  });

  it('a replay to subscribers asked of one instance reaches the forward connected to the other', async () => {
    const f = await spawnForward(a, ADMIN, app.url);
    forwards.push(f.child);
    await within(f.says(/: connected \(relay at seq/), 30_000, () => `forward never connected:\n${f.output()}`);
    const body = JSON.stringify({ replay: 'across instances' });
    const stored = await post(`${b.url}/hooks/default`, body);
    assert.equal(stored.status, 200);
    const seq = (stored.json as { seq: number }).seq;
    const times = () => app.received.filter((r) => r.body.toString() === body).length;
    await within(
      app.waitUntil(() => times() === 1),
      30_000,
      () => `the delivery never reached the app:\n${f.output()}`,
    );

    const r = await runCliBare(['replay', String(seq), '--to', 'subscribers', '--relay', b.url], { SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
    assert.equal(r.code, 0, `replay at B exits 0: ${r.stdout}${r.stderr}`);
    assert.match(r.stdout, new RegExp(`sent #${seq} again to 1 subscriber\\b`));
    await within(
      app.waitUntil(() => times() === 2),
      30_000,
      () => `the replay never reached the app:\n${f.output()}`,
    );
    await within(f.says(new RegExp(`#${seq} .*\\(replay\\)`)), 30_000, () => `forward did not show the replay:\n${f.output()}`);
  });

  it("the instances' forward-attempt counters add up to the forwards the target got", async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => JSON.stringify({ counted: i }));
    for (const [i, body] of bodies.entries()) assert.equal((await post(`${(i % 2 ? b : a).url}/hooks/default`, body)).status, 200);
    await within(
      shared.waitUntil((got) => bodies.every((body) => got.some((r) => r.body.toString() === body))),
      30_000,
      () => `the target got ${shared.received.length} forwards`,
    );
    const ok = { target: shared.url, outcome: 'ok' };
    let counted: number[] = [];
    // Bounded: an attempt is counted as it is recorded, just after the target answered.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      counted = await Promise.all([a, b].map(async (r) => sample((await scrape(`${r.url}/metrics`, ADMIN)).text, 'relay_forward_attempts_total', ok)));
      if (counted[0]! + counted[1]! === shared.received.length) break;
    }
    assert.equal(
      counted[0]! + counted[1]!,
      shared.received.length,
      `counted by A and B: ${counted.join(' and ')}; forwards at the target: ${shared.received.length}`,
    );
  });
});
