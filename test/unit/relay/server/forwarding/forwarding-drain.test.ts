// A backlog does not wait for the schedule once its target is back (issue 10 item 6): a 2xx after
// failures releases the target's parked forwards at once, in seq order; at start-up each target's
// oldest pending forward goes first and, if it goes through, the rest follow; "retry pending now"
// (API, RelayApi, CLI) queues them on demand; a target that stays down keeps its schedule.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { RelayApi } from '../../../../../relay/client';
import { cli, post, settled, startTarget, tempDir, type TargetApp } from '../../support/helpers';
import { until } from '../../../../support/until';

/** The service's first retry is a minute away; an hour makes any wait for the schedule fail the test. */
const HOUR_LATER = [0, 3_600_000, 3_600_000];

function seqOf(r: { json: unknown }): number {
  return (r.json as { seq: number }).seq;
}

/** Resolves once delivery `seq` has at least `n` recorded attempts. */
function attempted(relay: RelayServer, seq: number, n = 1): Promise<void> {
  return until(
    () => ((relay.store.get(seq)?.attempts.length ?? 0) >= n ? true : undefined),
    (wake) => {
      relay.store.on('forward', wake);
      return () => relay.store.off('forward', wake);
    },
  ).then(() => undefined);
}

function bodiesOk(t: TargetApp): string[] {
  return t.received.filter((r) => r.status === 200).map((r) => r.body.toString());
}

describe('relay forwarding: backlog drain and retry pending now', function () {
  this.timeout(60_000);
  let relay: RelayServer | undefined;
  const targets: TargetApp[] = [];

  afterEach(async () => {
    await relay?.close();
    relay = undefined;
    for (const t of targets.splice(0)) await t.close();
  });

  async function target(status = 200): Promise<TargetApp> {
    const t = await startTarget();
    t.status = status;
    targets.push(t);
    return t;
  }

  it('a target that answers 2xx again gets its parked backlog at once, in seq order', async () => {
    const app = await target(503);
    // concurrency 1: one attempt at a time, so the arrival order is the order of the attempts.
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [app.url], retrySchedule: HOUR_LATER, concurrency: 1 });
    const seqs: number[] = [];
    for (let i = 1; i <= 5; i++) seqs.push(seqOf(await post(`${relay.url}/hooks/default`, `{"n":${i}}`)));
    for (const s of seqs) await attempted(relay, s);
    app.status = 200;
    await post(`${relay.url}/hooks/default`, '{"n":6}');
    await app.waitUntil((r) => r.filter((x) => x.status === 200).length >= 6);
    assert.deepEqual(
      bodiesOk(app),
      [6, 1, 2, 3, 4, 5].map((n) => `{"n":${n}}`),
    );
    for (const s of seqs) {
      await settled(relay.store, s);
      assert.deepEqual(
        relay.store.get(s)!.attempts.map((a) => a.status),
        [503, 200],
      );
    }
  });

  it('at start-up the oldest pending forward goes at once; when it succeeds the backlog follows; a target still down keeps its schedule', async () => {
    const up = await target(503);
    const down = await target(503);
    const dataDir = tempDir();
    const channels = { up: { forward: [up.url] }, down: { forward: [down.url] } };
    relay = await startRelay({ port: 0, dataDir, channels, retrySchedule: HOUR_LATER });
    const upSeqs: number[] = [];
    const downSeqs: number[] = [];
    for (let i = 0; i < 3; i++) {
      upSeqs.push(seqOf(await post(`${relay.url}/hooks/up`, `{"up":${i}}`)));
      downSeqs.push(seqOf(await post(`${relay.url}/hooks/down`, `{"down":${i}}`)));
    }
    for (const s of [...upSeqs, ...downSeqs]) await attempted(relay, s);
    await relay.close();
    up.status = 200;
    const before = down.received.length;
    relay = await startRelay({ port: 0, dataDir, channels, retrySchedule: HOUR_LATER });
    await app3(up);
    await attempted(relay, downSeqs[0]!, 2);
    // The target still down got one attempt (its oldest forward), not one per pending forward.
    assert.equal(down.received.length, before + 1);
    assert.deepEqual(
      downSeqs.map((s) => relay!.store.get(s)!.attempts.length),
      [2, 1, 1],
    );
    assert.deepEqual(
      downSeqs.map((s) => relay!.store.get(s)!.summary.forward[0]!.status),
      ['pending', 'pending', 'pending'],
    );
  });

  async function app3(up: TargetApp): Promise<void> {
    await up.waitUntil((r) => r.filter((x) => x.status === 200).length >= 3);
    assert.deepEqual(bodiesOk(up).sort(), ['{"up":0}', '{"up":1}', '{"up":2}']);
  }

  it('retry pending now: POST /api/forward/retry by channel, by target, or all; bad bodies get 400', async () => {
    const a = await target(503);
    const b = await target(503);
    relay = await startRelay({ port: 0, dataDir: tempDir(), channels: { a: { forward: [a.url] }, b: { forward: [b.url] } }, retrySchedule: HOUR_LATER });
    const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
    const aSeqs = [seqOf(await post(`${relay.url}/hooks/a`, '{"a":1}')), seqOf(await post(`${relay.url}/hooks/a`, '{"a":2}'))];
    const bSeq = seqOf(await post(`${relay.url}/hooks/b`, '{"b":1}'));
    for (const s of [...aSeqs, bSeq]) await attempted(relay, s);
    a.status = 200;
    b.status = 200;
    assert.deepEqual(await api.retryPending({ channel: 'a' }), { queued: 2 });
    for (const s of aSeqs) await settled(relay.store, s);
    assert.equal(relay.store.get(bSeq)!.summary.forward[0]!.status, 'pending', 'channel b was not asked for');
    assert.equal(b.received.length, 1);
    assert.deepEqual(await api.retryPending({ target: a.url }), { queued: 0 });
    assert.deepEqual(await api.retryPending({ target: b.url }), { queued: 1 });
    await settled(relay.store, bSeq);
    assert.deepEqual(await api.retryPending(), { queued: 0 });
    await assert.rejects(api.retryPending({ channel: 5 } as never), /400 channel must be a non-empty string/);
    await assert.rejects(api.retryPending({ colour: 'red' } as never), /400 unknown field 'colour'/);
  });

  it('service-hooks retry-pending (a real process) asks the relay and prints how many were queued', async () => {
    const app = await target(503);
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [app.url], retrySchedule: HOUR_LATER });
    const seq = seqOf(await post(`${relay.url}/hooks/default`, '{"cli":1}'));
    await attempted(relay, seq);
    app.status = 200;
    const path = await cli();
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [path, 'retry-pending', ...args], { env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const ok = await run(['--relay', relay.url, '--token', relay.token]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /queued 1 pending forward for an attempt now/);
    await settled(relay.store, seq);
    assert.equal(relay.store.get(seq)!.summary.forward[0]!.status, 'ok');
    const bad = await run(['--relay', relay.url, '--token', relay.token, '--target', 'ftp://x']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--target must be an http\(s\) URL/);
  });
});
