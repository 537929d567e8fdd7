// Pins issue 38 item 3: one `service-hooks forward` takes several channels (`--channel a,b`, or
// `'*'` for every channel the token reads), with one resume point per channel in the state file
// rules of today (per relay and scope), and a channel token given another channel is a usage
// error (exit 2), not an empty stream. Real relay, forwarder and app processes.
import { strict as assert } from 'node:assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { post, relayProcesses, signed, spawnRelayWithData, startTarget, tempDir, within, type TargetApp } from '../support/helpers';
import { call, runCli } from '../support/publicHelpers';
import { forwarder, processesPerTest } from '../support/forwarderProcess';

const SECRET = 'channels-secret-0123456789';

describe('service-hooks forward: several channels in one process (relay, forwarder and app as processes)', function () {
  this.timeout(120_000);
  const procs = relayProcesses();
  const { children, apps } = processesPerTest();

  async function relayWith(names: string[]) {
    const { relay, admin } = await spawnRelayWithData();
    procs.push(relay);
    const tokens: Record<string, string> = {};
    for (const name of names) tokens[name] = (await call('POST', `${relay.url}/api/channels`, admin, { name, secrets: [SECRET] })).json.token as string;
    const send = async (channel: string, n: number) => {
      const body = JSON.stringify({ channel, n });
      assert.equal((await post(`${relay.url}/hooks/${channel}`, body, signed(SECRET, body, { 'x-service-event': 'push' }))).status, 200);
    };
    return { relay, admin, tokens, send };
  }
  const got = (app: TargetApp) => app.received.map((r) => JSON.parse(r.body.toString()) as { channel: string; n: number }).map((b) => `${b.channel}${b.n}`);

  it('--channel a,b: one forwarder, one resume point per channel, each resumed after a restart', async () => {
    const { relay, admin, send } = await relayWith(['a', 'b', 'c']);
    const app = await startTarget();
    apps.push(app);
    const env = { XDG_STATE_HOME: tempDir() };
    const args = ['--relay', relay.url, '--token', admin, '--to', app.url, '--channel', 'a,b'];
    const first = await forwarder(args, env);
    children.push(first.child);
    await first.saw(/channel a: connected[^]*channel b: connected|channel b: connected[^]*channel a: connected/);
    await send('a', 1);
    await send('c', 1); // not asked for
    await send('b', 1);
    await app.waitFor(2);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.out());
    await send('a', 2);
    await send('b', 2);
    const again = await forwarder(args, env);
    children.push(again.child);
    await again.saw(/channel a: resuming after seq \d+/);
    await again.saw(/channel b: resuming after seq \d+/);
    await within(app.waitFor(4), 60_000, () => `the app got ${got(app).join(' ')}:\n${again.out()}`);
    assert.deepEqual(got(app).sort(), ['a1', 'a2', 'b1', 'b2']);
    const files = readdirSync(join(env.XDG_STATE_HOME, 'service-hooks', 'forward')).filter((f) => /^[^.].*\.json$/.test(f));
    assert.equal(files.length, 2, `one state file per channel: ${files.join(', ')}`);
  });

  it("--channel '*' takes every channel the admin token reads", async () => {
    const { relay, admin, send } = await relayWith(['x', 'y']);
    const app = await startTarget();
    apps.push(app);
    const f = await forwarder(['--relay', relay.url, '--token', admin, '--to', app.url, '--channel', '*'], { XDG_STATE_HOME: tempDir() });
    children.push(f.child);
    await f.saw(/channel x: connected[^]*channel y: connected|channel y: connected[^]*channel x: connected/);
    await send('x', 1);
    await send('y', 1);
    await app.waitFor(2);
    assert.deepEqual(got(app).sort(), ['x1', 'y1']);
  });

  it('a channel token given another channel exits 2 naming --channel; bad channel lists too', async () => {
    const { relay, tokens } = await relayWith(['alice', 'bob']);
    const r = await runCli(['forward', '--relay', relay.url, '--token', tokens.alice!, '--to', 'http://127.0.0.1:9/', '--channel', 'alice,bob']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /this token is limited to channel 'alice': --channel asks for another/);
    for (const bad of ['a,,b', 'a,*', 'a,a']) {
      const u = await runCli(['forward', '--relay', relay.url, '--token', tokens.alice!, '--to', 'http://127.0.0.1:9/', '--channel', bad]);
      assert.equal(u.code, 2, `${bad}: ${u.stderr}`);
      assert.match(u.stderr, /--channel/);
    }
  });
});
