// Pins issue 38 item 5 (json, quiet): `service-hooks forward --output json` writes one JSON object
// per outcome on stdout and nothing else, and goes on forwarding while nobody reads its stdout
// (back-pressure held in memory, flushed at the stop); `--output quiet` prints only what needs a
// person; a wrong --output exits 2 naming it. Real relay, forwarder and app processes.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cli, post, relayProcesses, signed, spawnRelayWithData, startTarget, tempDir, within } from '../support/helpers';
import { call, childEnv, runCli } from '../support/publicHelpers';
import type { OutcomeJson } from '../../../../relay/cli/forwardOutput';
import { bare, processesPerTest } from '../support/forwarderProcess';

const SECRET = 'output-secret-0123456789';

describe('service-hooks forward --output (relay, forwarder and app as processes)', function () {
  this.timeout(180_000);
  const procs = relayProcesses();
  const { children, apps } = processesPerTest();

  async function setUp() {
    const { relay, admin } = await spawnRelayWithData();
    procs.push(relay);
    const dev = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'dev', secrets: [SECRET] })).json.token as string;
    const app = await startTarget();
    apps.push(app);
    const send = async (event: string, n: number) => {
      const body = JSON.stringify({ n });
      const r = await post(`${relay.url}/hooks/dev`, body, signed(SECRET, body, { 'x-service-event': event, 'x-service-delivery': `d-${n}` }));
      assert.equal(r.status, 200);
      return (r.json as { seq: number }).seq;
    };
    /** Resolves once the relay recorded the forwarder's result of `seq` (it acknowledges after printing it). */
    const recorded = async (seq: number) => {
      for (let asked = 0; asked < 5000; asked++) {
        const d = (await call('GET', `${relay.url}/api/deliveries/${seq}`, admin)).json as { forward: { target: string }[] };
        if (d.forward.some((f) => f.target === 'subscriber')) return;
      }
      throw new Error(`the relay recorded no result of #${seq}`);
    };
    return { relay, dev, app, send, recorded };
  }

  /** A forwarder whose stdout nobody reads until `read()`. */
  async function unread(args: string[]) {
    const child = spawn(process.execPath, [await cli(), 'forward', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
    children.push(child);
    child.stdout!.pause();
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const read = async () => {
      let stdout = '';
      child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stdout!.resume();
      const [code] = (await once(child, 'close')) as [number | null];
      return { code, stdout, stderr };
    };
    return { child, read, stderr: () => stderr };
  }

  it('json: one object per outcome, nothing else on stdout, while nobody reads it', async () => {
    const { relay, dev, app, send, recorded } = await setUp();
    const N = 400; // some 80 KB of JSON: more than a pipe holds
    app.statusFor = (r) => ((JSON.parse(r.body.toString()) as { n: number }).n === 3 ? 503 : 200);
    await send('issue', 0); // left out by the filter
    let last = 0;
    for (let n = 1; n <= N; n++) last = await send('push', n);
    const f = await unread([
      '--relay',
      relay.url,
      '--token',
      dev,
      '--to',
      app.url,
      '--since',
      '0',
      '--exclude-events',
      'issue',
      '--output',
      'json',
      '--state',
      `${tempDir()}/s.json`,
    ]);
    await within(app.waitFor(N), 120_000, () => `the app got ${app.received.length} of ${N} while stdout was not read:\n${f.stderr()}`);
    await recorded(last);
    f.child.kill('SIGTERM');
    const { code, stdout, stderr } = await f.read();
    assert.equal(code, 0, stderr);
    const lines = stdout.trimEnd().split('\n');
    const outcomes = lines.map((l) => JSON.parse(l) as OutcomeJson);
    assert.equal(outcomes.length, N + 1, 'one line per outcome, nothing else');
    assert.deepEqual(outcomes[0], {
      seq: 1, channel: 'dev', event: 'issue', deliveryId: 'd-0', target: null, outcome: 'skipped', status: null, error: null,
      attempt: null, durationMs: null, willRetry: false, reason: 'skipped by the filter',
    }); // prettier-ignore
    const retrying = outcomes.find((o) => o.deliveryId === 'd-3')!;
    assert.equal(retrying.outcome, 'retrying');
    assert.equal(retrying.status, 503);
    assert.equal(retrying.willRetry, true);
    assert.equal(retrying.attempt, 1);
    const delivered = outcomes.filter((o) => o.outcome === 'delivered');
    assert.equal(delivered.length, N - 1);
    for (const o of delivered) {
      assert.equal(o.target, app.url);
      assert.equal(o.status, 200);
      assert.equal(o.attempt, 1);
      assert.equal(typeof o.durationMs, 'number');
      assert.equal(o.willRetry, false);
    }
    assert.deepEqual(
      outcomes.map((o) => o.seq),
      Array.from({ length: N + 1 }, (_, i) => i + 1),
    );
  });

  it('quiet: only a refused delivery is shown; a wrong --output exits 2 naming it', async () => {
    const { relay, dev, app, send, recorded } = await setUp();
    app.statusFor = (r) => ((JSON.parse(r.body.toString()) as { n: number }).n === 2 ? 400 : 200);
    await send('push', 1);
    const refused = await send('push', 2);
    const last = await send('push', 3);
    const f = await unread(['--relay', relay.url, '--token', dev, '--to', app.url, '--since', '0', '--output', 'quiet', '--state', `${tempDir()}/s.json`]);
    await app.waitFor(3);
    await recorded(last);
    f.child.kill('SIGTERM');
    const { code, stdout, stderr } = await f.read();
    assert.equal(code, 0, stderr);
    assert.equal(bare(stdout), `#${refused} dev push → 400 (not retried: service-hooks replay ${refused})\n`);
    assert.doesNotMatch(stderr, /connected/);
    assert.match(stderr, /forward: 3 posted, 2 2xx, 1 refused, 0 retrying, 0 skipped by the filter/);

    const bad = await runCli(['forward', '--relay', relay.url, '--token', dev, '--to', app.url, '--output', 'yaml']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--output must be one of text, json, quiet, interactive, got 'yaml'/);
  });
});
