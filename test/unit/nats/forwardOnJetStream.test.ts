// `service-hooks forward --route`, `--events` and `--channel '*'` against a relay on NATS JetStream
// (the forward tests in test/unit/relay/commands run on the file journal): each event goes to its
// own app, the filtered-out ones are recorded at the relay as skipped by the filter, and '*' takes
// every channel the admin token reads. Real nats-server, relay, forwarder and app processes.
import { strict as assert } from 'node:assert';
import { post, signed, spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { call } from '../relay/support/publicHelpers';
import { forwarder, processesPerTest } from '../relay/support/forwarderProcess';
import { startNats, type NatsCluster } from './natsServers';

const ADMIN = 'forward-js-admin-token-0123456789';
const SECRET = 'forward-js-secret-0123456789';

describe('service-hooks forward against a relay on JetStream: --route, --events, --channel *', function () {
  this.timeout(120_000);
  let nats: NatsCluster;
  let relay: RelayProcess;
  const tokens: Record<string, string> = {};
  const { children, apps } = processesPerTest();

  before(async () => {
    nats = await startNats(1);
    relay = await spawnRelay(['--store', nats.urls, '--data', tempDir()], { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
    for (const name of ['dev', 'ops'])
      tokens[name] = (await call('POST', `${relay.url}/api/channels`, ADMIN, { name, secrets: [SECRET] })).json.token as string;
  });
  after(async () => {
    await relay?.stop('SIGKILL');
    await nats?.stop();
  });

  async function app(): Promise<TargetApp> {
    const a = await startTarget();
    apps.push(a);
    return a;
  }

  async function send(channel: string, event: string, n: number): Promise<number> {
    const body = JSON.stringify({ channel, n });
    const r = await post(`${relay.url}/hooks/${channel}`, body, signed(SECRET, body, { 'x-service-event': event }));
    assert.equal(r.status, 200);
    return (r.json as { seq: number }).seq;
  }

  const ns = (a: TargetApp) => a.received.map((r) => (JSON.parse(r.body.toString()) as { n: number }).n);

  /** The relay's subscriber forward state of `seq`, once it has one. */
  async function subscriberState(seq: number): Promise<string> {
    for (let asked = 0; asked < 5000; asked++) {
      const d = (await call('GET', `${relay.url}/api/deliveries/${seq}`, ADMIN)).json as { forward: { target: string; status: string }[] };
      const s = d.forward.find((f) => f.target === 'subscriber');
      if (s) return s.status;
    }
    throw new Error(`the relay recorded no subscriber state for #${seq}`);
  }

  it('--route per event and --events with a channel token: each event to its app, the rest skipped by the filter at the relay', async () => {
    const pushes = await app();
    const issues = await app();
    const f = await forwarder(
      [
        '--relay',
        relay.url,
        '--token',
        tokens.dev!,
        '--route',
        `push=${pushes.url}`,
        '--route',
        `issue=http://127.0.0.1:${issues.port}/issues`,
        '--events',
        'push,issue,comment',
      ],
      { XDG_STATE_HOME: tempDir() },
    );
    children.push(f.child);
    await f.saw(/connected/);
    const push = await send('dev', 'push', 1);
    const issue = await send('dev', 'issue', 2);
    const comment = await send('dev', 'comment', 3); // in --events, but no route and no --to
    const release = await send('dev', 'release', 4); // not in --events
    await send('ops', 'push', 5); // another channel: never this token's
    await pushes.waitFor(1);
    await issues.waitFor(1);
    await f.saw(new RegExp(`#${comment} dev comment skipped by the filter`));
    await f.saw(new RegExp(`#${release} dev release skipped by the filter`));
    assert.deepEqual([ns(pushes), ns(issues), issues.received[0]!.path], [[1], [2], '/issues']);
    assert.deepEqual(
      [await subscriberState(push), await subscriberState(issue), await subscriberState(comment), await subscriberState(release)],
      ['ok', 'ok', 'skipped', 'skipped'],
    );
    assert.ok(!f.out().includes(tokens.dev!), 'the token is not in the output');
  });

  it("--channel '*' with the admin token takes every channel, each from where it is", async () => {
    const target = await app();
    const f = await forwarder(['--relay', relay.url, '--token', ADMIN, '--to', target.url, '--channel', '*', '--events', 'pipeline'], {
      XDG_STATE_HOME: tempDir(),
    });
    children.push(f.child);
    await f.saw(/channel dev: connected[^]*channel ops: connected|channel ops: connected[^]*channel dev: connected/);
    await send('dev', 'pipeline', 11);
    await send('ops', 'pipeline', 12);
    const skipped = await send('ops', 'push', 13);
    await target.waitFor(2);
    await f.saw(new RegExp(`#${skipped} ops push skipped by the filter`));
    assert.deepEqual(ns(target).sort(), [11, 12]);
    assert.ok(!f.out().includes(ADMIN), 'the token is not in the output');
  });
});
