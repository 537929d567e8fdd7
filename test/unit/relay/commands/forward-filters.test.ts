// Pins issue 38 items 1, 2 and 6: `service-hooks forward --events/--exclude-events` posts only
// those event types and the relay records the others as skipped by the filter (shown so by
// `deliveries`, never delivered or failed); `--route EVENT=URL` sends each event to its own app,
// and one app that is down does not hold back another's deliveries; a wrong flag value exits 2
// naming the flag; SIGTERM prints a one-line summary (item 6). Real relay, forwarder and app processes.
import { strict as assert } from 'node:assert';
import { post, relayProcesses, signed, spawnRelayWithData, startTarget, within, type TargetApp } from '../support/helpers';
import { call, runCli } from '../support/publicHelpers';
import { bare, forwarder, processesPerTest } from '../support/forwarderProcess';

const SECRET = 'filters-secret-0123456789';

describe('service-hooks forward: event filters and routes (relay, forwarder and apps as processes)', function () {
  this.timeout(120_000);
  const procs = relayProcesses();
  const { children, apps } = processesPerTest();

  async function relayWithChannel() {
    const { relay, admin } = await spawnRelayWithData();
    procs.push(relay);
    const dev = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'dev', secrets: [SECRET] })).json.token as string;
    const send = async (event: string, n: number) => {
      const body = JSON.stringify({ n });
      const r = await post(`${relay.url}/hooks/dev`, body, signed(SECRET, body, { 'x-service-event': event }));
      assert.equal(r.status, 200);
      return (r.json as { seq: number }).seq;
    };
    return { relay, admin, dev, send };
  }

  async function app(): Promise<TargetApp> {
    const a = await startTarget();
    apps.push(a);
    return a;
  }

  /** The relay's subscriber forward state of `seq`, once it has one. */
  async function subscriberState(url: string, admin: string, seq: number): Promise<{ status: string; lastStatus?: number }> {
    for (let asked = 0; asked < 5000; asked++) {
      const d = (await call('GET', `${url}/api/deliveries/${seq}`, admin)).json as { forward: { target: string; status: string; lastStatus?: number }[] };
      const s = d.forward.find((f) => f.target === 'subscriber');
      if (s) return s;
    }
    throw new Error(`the relay recorded no subscriber state for #${seq}`);
  }

  it('--events push posts only pushes; the relay records the rest as skipped by the filter, and deliveries shows it', async () => {
    const { relay, admin, dev, send } = await relayWithChannel();
    const target = await app();
    const f = await forwarder(['--relay', relay.url, '--token', dev, '--to', target.url, '--events', 'push']);
    children.push(f.child);
    await f.saw(/connected/);
    const issue = await send('issue', 1);
    const push = await send('push', 2);
    await target.waitFor(1);
    await f.saw(new RegExp(`#${issue} dev issue skipped by the filter`));
    await f.saw(new RegExp(`#${push} dev push → 200`));
    assert.deepEqual(
      target.received.map((r) => r.headers['x-service-event']),
      ['push'],
    );
    assert.deepEqual(await subscriberState(relay.url, admin, issue), { target: 'subscriber', status: 'skipped', attempts: 0 });
    assert.equal((await subscriberState(relay.url, admin, push)).status, 'ok');
    const listed = await runCli(['deliveries', '--relay', relay.url, '--token', admin]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`#${issue} .* issue .*forward: skipped by the filter \\(by a forward subscriber\\)`));
    assert.match(listed.stdout, new RegExp(`#${push} .* push .*forward: ok 200`));
  });

  it('--exclude-events leaves those out; an unknown event name is a usage error listing the known ones', async () => {
    const { relay, admin, dev, send } = await relayWithChannel();
    const target = await app();
    const f = await forwarder(['--relay', relay.url, '--token', dev, '--to', target.url, '--exclude-events', 'issue,comment']);
    children.push(f.child);
    await f.saw(/connected/);
    const skipped = await send('comment', 1);
    await send('release', 2);
    await target.waitFor(1);
    assert.equal(target.received[0]!.headers['x-service-event'], 'release');
    assert.equal((await subscriberState(relay.url, admin, skipped)).status, 'skipped');

    for (const [flag, value] of [
      ['--events', 'push,pushh'],
      ['--exclude-events', 'nope'],
    ] as const) {
      const r = await runCli(['forward', '--relay', relay.url, '--token', dev, '--to', target.url, flag, value]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`${flag}: unknown event '\\w+' \\(known: push, pull_request, issue, comment, release, pipeline, agent\\)`));
    }
  });

  it('--route sends each event to its app; one app down holds back only its own deliveries', async () => {
    const { relay, dev, send } = await relayWithChannel();
    const pushes = await app();
    const down = await startTarget();
    const issuesPort = down.port;
    await down.close(); // nothing listens on the issues app's port until later
    const f = await forwarder([
      '--relay', relay.url, '--token', dev, 
      '--route', `push=${pushes.url}`,
      '--route', `issue=http://127.0.0.1:${issuesPort}/issues`,
    ]); // prettier-ignore
    children.push(f.child);
    await f.saw(/connected/);
    const issue = await send('issue', 1);
    const comment = await send('comment', 2); // no route, no --to: skipped by the filter
    await send('push', 3);
    await send('push', 4);
    await within(pushes.waitFor(2), 60_000, () => `the push app got ${pushes.received.length} while the issue app was down:\n${f.out()}`);
    await f.saw(new RegExp(`#${comment} dev comment skipped by the filter`));
    await f.saw(/127\.0\.0\.1:\d+\/issues is unreachable/);
    const issues = await startTarget(issuesPort);
    apps.push(issues);
    await within(issues.waitFor(1), 60_000, () => `the issue app got nothing after it came back:\n${f.out()}`);
    await f.saw(new RegExp(`#${issue} dev issue → 200`));
    assert.equal(issues.received[0]!.path, '/issues');
    assert.deepEqual(
      pushes.received.map((r) => (JSON.parse(r.body.toString()) as { n: number }).n),
      [3, 4],
    );
  });

  it('a route that is not http(s), or has credentials in it, exits 2 naming --route, without echoing the password', async () => {
    const { relay, dev } = await relayWithChannel();
    const bad = [
      ['--route', 'push=ftp://127.0.0.1/x', /--route must be an http\(s\):\/\/ URL/],
      ['--route', 'push=http://me:hunter2@127.0.0.1:9/x', /--route: a URL with credentials in it/],
      ['--route', 'push', /--route must be EVENT=URL/],
      ['--route', 'pushy=http://127.0.0.1:9/', /--route: unknown event 'pushy'/],
    ] as const;
    for (const [flag, value, says] of bad) {
      const r = await runCli(['forward', '--relay', relay.url, '--token', dev, flag, value]);
      assert.equal(r.code, 2, `${value}: ${r.stderr}`);
      assert.match(r.stderr, says);
      assert.ok(!r.stderr.includes('hunter2'), r.stderr);
    }
  });

  it('SIGTERM prints a one-line summary: posted, 2xx, refused, retrying, skipped by the filter', async () => {
    const { relay, dev, send } = await relayWithChannel();
    const target = await app();
    target.statusFor = (r) => ({ 1: 200, 2: 400, 4: 503 })[(JSON.parse(r.body.toString()) as { n: number }).n] ?? 200;
    const f = await forwarder(['--relay', relay.url, '--token', dev, '--to', target.url, '--events', 'push,issue']);
    children.push(f.child);
    await f.saw(/connected/);
    await send('push', 1);
    await send('issue', 2);
    const comment = await send('comment', 3);
    const retried = await send('push', 4);
    await f.saw(new RegExp(`#${retried} dev push → 503 \\(retrying`));
    await f.saw(new RegExp(`#${comment} dev comment skipped by the filter`));
    f.child.kill('SIGTERM');
    assert.equal(await f.exited, 0, f.out());
    const lines = bare(f.stderr()).trim().split('\n');
    assert.equal(lines.at(-1), 'forward: 3 posted, 1 2xx, 1 refused, 1 retrying, 1 skipped by the filter');
  });
});
