// Pins issue 36 item 1: `service-hooks forward`'s resume point is kept per relay and per what the
// token reads (the hello's scope), so two forwarders with different channel tokens never share
// one; a state file of another scope, or of an older version, is refused naming the file; and a
// resume point the relay never reached (its data was reset) stops forward with the way out
// instead of a warning followed by a skip (believed when the relay says it twice running: an
// instance sharing JetStream may lag a moment). Real relay and forwarders (child processes), real apps.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { WebSocketServer } from 'ws';
import { post, relayProcesses, signed, spawnRelayWithData, startTarget, tempDir, within, type TargetApp } from '../support/helpers';
import { call, runCli } from '../support/publicHelpers';
import { defaultStateFile, writeStateFile } from '../../../../relay/cli/forwardState';
import { bare, forwarder, processesPerTest } from '../support/forwarderProcess';

const SECRET = 'scope-secret-0123456789';

/** Posts deliveries `from`..`to` (exclusive) to `channel`, one after another. */
async function send(url: string, channel: string, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n++) {
    const body = JSON.stringify({ channel, n });
    const r = await post(`${url}/hooks/${channel}`, body, signed(SECRET, body, { 'x-service-event': 'push' }));
    assert.equal(r.status, 200);
  }
}

/** What the app got of `channel`'s deliveries, as their numbers, in the order they came. */
const numbers = (app: TargetApp) => app.received.map((r) => (JSON.parse(r.body.toString()) as { n: number }).n);

describe('service-hooks forward: one resume point per token scope (relay and forwarders as processes)', function () {
  this.timeout(120_000);
  const procs = relayProcesses();
  const { children, apps } = processesPerTest();

  async function relayWithChannels() {
    const { relay, admin } = await spawnRelayWithData();
    procs.push(relay);
    const token = async (name: string) => (await call('POST', `${relay.url}/api/channels`, admin, { name, secrets: [SECRET] })).json.token as string;
    return { relay, admin, alice: await token('alice'), bob: await token('bob') };
  }

  it('two forwarders with different channel tokens, one restarted, 200 deliveries each: none skipped, none twice', async () => {
    const { relay, alice, bob } = await relayWithChannels();
    const env = { XDG_STATE_HOME: tempDir() }; // one state folder for both, as on one laptop
    const [appA, appB] = [await startTarget(), await startTarget()];
    apps.push(appA, appB);
    const run = async (token: string, app: TargetApp) => {
      const f = await forwarder(['--relay', relay.url, '--token', token, '--to', app.url], env);
      children.push(f.child);
      await f.saw(/connected/);
      return f;
    };
    const a = await run(alice, appA);
    await run(bob, appB);
    await Promise.all([send(relay.url, 'alice', 0, 50), send(relay.url, 'bob', 0, 50)]);
    await Promise.all([appA.waitFor(50), appB.waitFor(50)]);
    a.child.kill('SIGTERM');
    assert.equal(await a.exited, 0);

    // While alice's forwarder is down, both channels take deliveries; bob's moves its resume point on.
    await Promise.all([send(relay.url, 'alice', 50, 150), send(relay.url, 'bob', 50, 150)]);
    await appB.waitFor(150);
    const again = await run(alice, appA);
    assert.match(again.out(), /resuming after seq \d+/);
    await Promise.all([send(relay.url, 'alice', 150, 200), send(relay.url, 'bob', 150, 200)]);
    const all = Array.from({ length: 200 }, (_, n) => n);
    await within(
      Promise.all([appA.waitUntil((r) => r.length >= 200 && numbers(appA).includes(199)), appB.waitFor(200)]),
      90_000,
      () => `alice's app got ${appA.received.length}, bob's ${appB.received.length}:\n${again.out().split('\n').slice(-20).join('\n')}`,
    );
    assert.deepEqual(numbers(appA), all, "alice's app: each of its 200 once, in order");
    assert.deepEqual(numbers(appB), all, "bob's app: each of its 200 once, in order");
    const files = readdirSync(join(env.XDG_STATE_HOME, 'service-hooks', 'forward')).filter((f) => /^[^.].*\.json$/.test(f)); // not a write's temporary file
    assert.equal(files.length, 2, `one state file per token: ${files.join(', ')}`);
  });

  it("a state file of another token's scope, or of an older version, is refused with its name and the way out", async () => {
    const { relay, alice, bob } = await relayWithChannels();
    const app = await startTarget();
    apps.push(app);
    const state = join(tempDir(), 'mine.json');
    const first = await forwarder(['--relay', relay.url, '--token', alice, '--to', app.url, '--state', state], {});
    children.push(first.child);
    await first.saw(/connected/);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    assert.match((JSON.parse(readFileSync(state, 'utf8')) as { scope: string }).scope, /^channel alice@[\w-]+$/);

    const other = await runCli(['forward', '--relay', relay.url, '--token', bob, '--to', app.url, '--state', state]);
    assert.equal(other.code, 1, other.stderr);
    assert.equal(other.stderr.trim().split('\n').length, 1, other.stderr);
    assert.match(
      other.stderr,
      new RegExp(`${state} was written for channel alice@[\\w-]+, and this token reads channel bob@[\\w-]+: pass another --state FILE`),
    );

    // An older version's file records no scope: it may hold another token's resume point.
    const env = { XDG_STATE_HOME: tempDir() };
    const legacy = defaultStateFile(env, relay.url.replace(/^http/, 'ws'), undefined);
    writeStateFile(legacy, { lastSeq: 3, retrying: [] });
    const old = await runCli(['forward', '--relay', relay.url, '--token', bob, '--to', app.url], env);
    assert.equal(old.code, 1, old.stderr);
    assert.equal(old.stderr.trim().split('\n').length, 1, old.stderr);
    assert.ok(old.stderr.includes(`${legacy} was written by an older service-hooks`), old.stderr);
    assert.match(old.stderr, /restart with --since 3 \(--since 0 takes every delivery the relay holds\), or delete it/);
    const adopted = await forwarder(['--relay', relay.url, '--token', bob, '--to', app.url, '--since', '0'], env);
    children.push(adopted.child);
    await adopted.saw(/connected/);
    adopted.child.kill('SIGTERM');
    assert.equal(await adopted.exited, 0);
    const dir = join(env.XDG_STATE_HOME, 'service-hooks', 'forward');
    const kept = readdirSync(dir).filter((f) => /^[^.].*\.json$/.test(f) && join(dir, f) !== legacy);
    assert.equal(kept.length, 1, 'its own file, beside the old one');
    assert.match(readFileSync(join(dir, kept[0]!), 'utf8'), /^\{"scope":"channel bob@[\w-]+","lastSeq":0,/);
  });

  it('a resume point the relay never reached (its data was reset) stops forward with --since 0 as the way out', async () => {
    const { relay, admin } = await relayWithChannels();
    await send(relay.url, 'alice', 0, 2);
    const app = await startTarget();
    apps.push(app);
    const state = join(tempDir(), 'reset.json');
    writeStateFile(state, { scope: 'admin', lastSeq: 1000, retrying: [] });
    const r = await within(runCli(['forward', '--relay', relay.url, '--token', admin, '--to', app.url, '--state', state]), 60_000, () => 'forward went on');
    assert.equal(r.code, 1, r.stderr);
    assert.ok(
      r.stderr.includes(
        `service-hooks forward: the relay has not reached seq 1000, where the forward state ${state} resumes: its data was reset, or it is another relay; restart with --since 0`,
      ),
      r.stderr,
    );
    assert.equal(app.received.length, 0);
    assert.match(bare(r.stderr), /^forward: every channel: the relay has not reached seq 1000; asking again; reconnecting/m, 'asked twice before believing it');
  });

  it('a relay that says so once (an instance a moment behind another on one JetStream) is asked again, not believed', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    let hellos = 0;
    wss.on('connection', (ws) => {
      const behind = hellos++ === 0;
      ws.send(JSON.stringify({ type: 'hello', lastSeq: 5, since: 5, scope: { kind: 'admin' }, ...(behind ? { sinceAhead: true } : {}) }));
    });
    const app = await startTarget();
    apps.push(app);
    try {
      const f = await forwarder(
        ['--relay', `ws://127.0.0.1:${(wss.address() as { port: number }).port}`, '--token', 't', '--to', app.url, '--state', join(tempDir(), 's.json')],
        {},
      );
      children.push(f.child);
      await f.saw(/connected \(relay at seq 5\)/);
      assert.equal(hellos, 2);
      f.child.kill('SIGTERM');
      assert.equal(await f.exited, 0, f.out());
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});
