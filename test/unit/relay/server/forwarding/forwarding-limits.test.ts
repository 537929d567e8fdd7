// Forwarding under hostile or failing targets (issue 10 item 3, issue 9 item 5): a total deadline
// per attempt, a cap on the answer read, per-target concurrency, and a failed journal write of an
// attempt that still leaves a retry scheduled.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { forwardDelivery } from '../../../../../relay/client';
import { DEFAULT_PER_TARGET_CONCURRENCY } from '../../../../../relay/server/forwarding/forwarder';
import { cli, post, settled, startTarget, tempDir, type TargetApp } from '../../support/helpers';
import { startFirehose, startTrickler, type SlowTarget } from '../../support/slowTargets';

const FAST = 10_000; // speed-up factor (RelayOptions.timeScale divides the schedule's delays)

function seqOf(r: { json: unknown }): number {
  return (r.json as { seq: number }).seq;
}

describe('relay forwarding limits', function () {
  this.timeout(60_000);
  let relay: RelayServer | undefined;
  let slow: SlowTarget | undefined;
  let target: TargetApp | undefined;

  afterEach(async () => {
    await relay?.close();
    await slow?.close();
    await target?.close();
    relay = slow = target = undefined;
  });

  it('64 deliveries stalled on a trickling target do not stop forwarding to another target', async () => {
    slow = await startTrickler();
    target = await startTarget();
    relay = await startRelay({
      port: 0,
      dataDir: tempDir(),
      channels: { slow: { forward: [slow.url] }, fast: { forward: [target.url] } },
      forwardTimeoutMs: 600_000, // the stalls last the whole test: isolation, not the deadline, keeps `fast` moving
    });
    for (let i = 0; i < 64; i++) assert.equal((await post(`${relay.url}/hooks/slow`, `{"slow":${i}}`)).status, 200);
    await slow.waitFor(DEFAULT_PER_TARGET_CONCURRENCY); // the slow target's lane is full; the rest of its backlog waits in its lane
    for (let i = 0; i < 5; i++) assert.equal((await post(`${relay.url}/hooks/fast`, `{"fast":${i}}`)).status, 200);
    await target.waitFor(5);
    assert.deepEqual(
      target.received.map((r) => r.body.toString()),
      [0, 1, 2, 3, 4].map((i) => `{"fast":${i}}`),
    );
    assert.equal(slow.received, DEFAULT_PER_TARGET_CONCURRENCY, 'at most the per-target concurrency is in flight to the slow target');
  });

  it('a hanging path does not hold up a healthy path on the same origin (a pool per target URL)', async () => {
    // One server, two paths: /hang takes requests and never answers, /ok answers 204 at once.
    const okBodies: string[] = [];
    let hanging = 0;
    let okWaiter: (() => void) | undefined;
    let hangWaiter: (() => void) | undefined;
    const held = new Set<ServerResponse>();
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/hang') {
          held.add(res);
          if (++hanging === DEFAULT_PER_TARGET_CONCURRENCY) hangWaiter?.();
          return;
        }
        okBodies.push(Buffer.concat(chunks).toString());
        res.writeHead(204).end();
        if (okBodies.length === N) okWaiter?.();
      });
    });
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    const origin = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
    const N = DEFAULT_PER_TARGET_CONCURRENCY + 8;
    try {
      relay = await startRelay({
        port: 0,
        dataDir: tempDir(),
        channels: { hang: { forward: [`${origin}/hang`] }, ok: { forward: [`${origin}/ok`] } },
        forwardTimeoutMs: 600_000, // the hanging attempts outlast the test: only separate pools keep /ok moving
      });
      const hangFull = new Promise<void>((r) => (hangWaiter = r));
      for (let i = 0; i < N; i++) assert.equal((await post(`${relay.url}/hooks/hang`, `{"hang":${i}}`)).status, 200);
      await hangFull; // /hang holds a full lane of connections to the origin
      const okAll = new Promise<void>((r) => (okWaiter = r));
      for (let i = 0; i < N; i++) assert.equal((await post(`${relay.url}/hooks/ok`, `{"ok":${i}}`)).status, 200);
      await okAll;
      assert.deepEqual(
        okBodies,
        Array.from({ length: N }, (_, i) => `{"ok":${i}}`),
      );
      assert.equal(hanging, DEFAULT_PER_TARGET_CONCURRENCY);
    } finally {
      for (const res of held) res.destroy();
      app.closeAllConnections();
      app.close();
    }
  });

  it('an attempt to a target that trickles its answer fails at the deadline and is retried', async () => {
    slow = await startTrickler();
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [slow.url], forwardTimeoutMs: 300, retrySchedule: [0, 0] });
    const seq = seqOf(await post(`${relay.url}/hooks/default`, '{"trickle":1}'));
    await settled(relay.store, seq);
    const e = relay.store.get(seq)!;
    assert.equal(e.summary.forward[0]!.status, 'failed');
    assert.equal(e.attempts.length, 2);
    for (const a of e.attempts) {
      assert.equal(a.ok, false);
      assert.match(a.error!, /no complete answer within 300 ms \(HTTP 200 headers received\)/);
    }
  });

  it('reads at most a capped part of an endless answer: the status decides', async () => {
    slow = await startFirehose();
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [slow.url], forwardTimeoutMs: 600_000 });
    const seq = seqOf(await post(`${relay.url}/hooks/default`, '{"firehose":1}'));
    await settled(relay.store, seq);
    const e = relay.store.get(seq)!;
    assert.equal(e.summary.forward[0]!.status, 'ok');
    assert.equal(e.attempts[0]!.status, 200);
  });

  it('a failed journal write of an attempt is logged and the forward is still retried (only a closed journal means stopping)', async () => {
    target = await startTarget();
    const lines: string[] = [];
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [target.url], timeScale: FAST, log: (l) => lines.push(l) });
    const store = relay.store;
    const real = store.recordAttempt.bind(store);
    let failures = 0;
    store.recordAttempt = (...args: Parameters<typeof real>) => {
      if (failures++ === 0) return Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
      return real(...args);
    };
    const seq = seqOf(await post(`${relay.url}/hooks/default`, '{"eio":1}'));
    await settled(store, seq);
    const e = store.get(seq)!;
    assert.equal(e.summary.forward[0]!.status, 'ok');
    assert.equal(target.received.length, 2, 'sent again: the first attempt was not journaled');
    assert.ok(
      lines.some((l) => /could not journal attempt 1 of delivery 1 .*EIO.*next try on the schedule/.test(l)),
      lines.join('\n'),
    );
  });

  it('forwardDelivery (the forward client) gives up at its deadline and at once when its signal aborts', async () => {
    slow = await startTrickler();
    const delivery = {
      seq: 1,
      channel: 'default',
      receivedAt: new Date().toISOString(),
      verification: 'unverified' as const,
      size: 2,
      forward: [],
      headers: {},
      bodyBase64: Buffer.from('{}').toString('base64'),
    };
    const late = await forwardDelivery(delivery, slow.url, { timeoutMs: 200 });
    assert.equal(late.ok, false);
    assert.match(late.error!, /no complete answer within 200 ms/);
    const stop = new AbortController();
    const pending = forwardDelivery(delivery, slow.url, { timeoutMs: 600_000, signal: stop.signal });
    await slow.waitFor(2);
    stop.abort();
    const stopped = await pending;
    assert.equal(stopped.ok, false);
    assert.match(stopped.error!, /stopped/);
  });

  it('a bad --forward-timeout (relay) or --timeout (forward) is a usage error (exit 2)', async () => {
    const path = await cli();
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [path, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
        child.once('exit', (code) => resolve({ code, stderr }));
      });
    const relayBad = await run(['relay', '--port', '0', '--data', tempDir(), '--forward-timeout', '0ms']);
    assert.equal(relayBad.code, 2);
    assert.match(relayBad.stderr, /--forward-timeout must be at least 1ms/);
    const forwardBad = await run(['forward', '--relay', 'ws://127.0.0.1:1', '--token', 't', '--to', 'http://127.0.0.1:1/', '--timeout', 'soon']);
    assert.equal(forwardBad.code, 2);
    assert.match(forwardBad.stderr, /--timeout must be a duration/);
  });

  it('service-hooks forward stops on the first SIGTERM while a forward to a trickling target is in flight', async () => {
    slow = await startTrickler();
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const child = spawn(
      process.execPath,
      [await cli(), 'forward', '--relay', `ws://127.0.0.1:${relay.port}`, '--token', relay.token, '--to', slow.url, '--since', '0', '--timeout', '10m'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await post(`${relay.url}/hooks/default`, '{"stuck":1}');
      await slow.waitFor(1);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0, out);
      assert.match(out, /stopped after seq 0/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
