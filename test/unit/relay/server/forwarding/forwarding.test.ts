// The relay's own forwarding (relay/server/forwarding/forwarder.ts): a target down then up gets
// every delivery, a refused connection spends no attempt, pending forwards survive a restart,
// replays go as-is or re-signed to another URL, and the API lists with filters and prunes.
import { strict as assert } from 'node:assert';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { RelayApi } from '../../../../../relay/client';
import { sign } from '../../../../../src/core/signing';
import { post, settled, signed, startTarget, tempDir, type TargetApp } from '../../support/helpers';

const SECRET = 's3cret';
// The service's schedule (0, 1 min, 5 min, 30 min) scaled down: 0, 6 ms, 30 ms, 180 ms.
const FAST = 10_000; // speed-up: the schedule's minutes become milliseconds

describe('relay forwarding', function () {
  this.timeout(60_000);
  let target: TargetApp;
  let relay: RelayServer | undefined;

  beforeEach(async () => {
    target = await startTarget();
  });
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
    await target.close();
  });

  it('target down then up: every delivery is forwarded and every attempt recorded', async () => {
    // Down for the first two attempts of every delivery, then up.
    target.statusFor = (r, all) => (all.filter((x) => x.body.equals(r.body)).length <= 2 ? 503 : 200);
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [target.url], timeScale: FAST });
    const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
    const seqs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const body = JSON.stringify({ i });
      seqs.push(((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).json as { seq: number }).seq);
    }
    for (const seq of seqs) await settled(relay.store, seq);
    for (const seq of seqs) {
      const d = await api.getDelivery(seq);
      assert.equal(d.forward[0]!.status, 'ok');
      assert.equal(d.attempts.length, 3, `seq ${seq}: ${d.attempts.length} attempts`);
      assert.equal(d.forward[0]!.attempts, d.attempts.length);
      const last = d.attempts.at(-1)!;
      assert.equal(last.status, 200);
      for (const a of d.attempts.slice(0, -1)) {
        assert.equal(a.ok, false);
        assert.equal(a.status, 503);
        assert.match(a.error!, /503/);
        assert.ok(a.durationMs >= 0 && !Number.isNaN(Date.parse(a.at)));
      }
    }
    const perBody = new Map<string, number>();
    for (const r of target.received) perBody.set(r.body.toString(), (perBody.get(r.body.toString()) ?? 0) + 1);
    assert.deepEqual([...perBody.values()], [3, 3, 3, 3, 3]);
  });

  it('a target that refuses connections spends no attempt: the forward waits pending and goes once its port answers (issue 43)', async () => {
    const port = target.port;
    await target.close();
    let paused!: () => void;
    const down = new Promise<void>((r) => (paused = r));
    const log = (line: string) => void (/is unreachable/.test(line) && paused());
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [`http://127.0.0.1:${port}/webhook`], timeScale: FAST, log });
    const seq = ((await post(`${relay.url}/hooks/default`, '{"held":1}')).json as { seq: number }).seq;
    await down;
    // The old rule spent the schedule on a refused port (FAST: well under a second) and marked it failed.
    const held = relay.store.get(seq)!;
    assert.deepEqual(
      held.summary.forward.map((f) => [f.status, f.attempts]),
      [['pending', 0]],
    );
    assert.equal(held.attempts.length, 0);
    target = await startTarget(port);
    await settled(relay.store, seq);
    const e = relay.store.get(seq)!;
    assert.deepEqual(
      e.summary.forward.map((f) => [f.status, f.attempts]),
      [['ok', 1]],
    );
    assert.deepEqual(
      target.received.map((r) => r.body.toString()),
      ['{"held":1}'],
    );
  });

  it('keeps pending forwards across a stop and resumes them on the next start', async () => {
    target.status = 500;
    const dataDir = tempDir();
    // A long schedule: after the first failure the next attempt is far away; stop before it.
    relay = await startRelay({ port: 0, dataDir, forward: [target.url], retrySchedule: [0, 3_600_000] });
    const seq = ((await post(`${relay.url}/hooks/default`, '{"keep":1}')).json as { seq: number }).seq;
    await target.waitFor(1);
    await new Promise<void>((r) => {
      const check = () => (relay!.store.get(seq)!.attempts.length >= 1 ? r() : relay!.store.once('forward', check));
      check();
    });
    await relay.close();
    target.status = 200;
    relay = await startRelay({ port: 0, dataDir, forward: [target.url], retrySchedule: [0, 3_600_000], timeScale: Infinity });
    await settled(relay.store, seq);
    const e = relay.store.get(seq)!;
    assert.equal(e.summary.forward[0]!.status, 'ok');
    assert.deepEqual(
      e.attempts.map((a) => a.status),
      [500, 200],
    );
    assert.equal(target.received.at(-1)!.body.toString(), '{"keep":1}');
  });

  it('replays to its targets as-is, or to another URL re-signed with a given secret, and records it', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [target.url] });
    const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
    const body = '{ "replay": true }';
    const { seq } = (await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).json as { seq: number };
    await settled(relay.store, seq);
    const asIs = await api.replay(seq);
    assert.equal(asIs.attempts.length, 1);
    assert.equal(asIs.attempts[0]!.status, 200);
    const other = await startTarget();
    try {
      const resigned = await api.replay(seq, { to: other.url, resignSecret: 'app-secret' });
      assert.equal(resigned.attempts[0]!.target, other.url);
      const got = other.received[0]!;
      assert.equal(got.body.toString(), body);
      assert.equal(got.headers['x-service-signature'], sign('app-secret', body));
    } finally {
      await other.close();
    }
    assert.equal(target.received.length, 2);
    assert.ok(target.received.every((r) => r.body.toString() === body && r.headers['x-service-signature'] === sign(SECRET, body)));
    const d = await api.getDelivery(seq);
    assert.equal(d.attempts.filter((a) => a.replay).length, 2);
    await assert.rejects(api.replay(999), /404/);
    await assert.rejects(api.replay(seq, { to: 'file:///etc/passwd' }), /400/);
  });

  it('lists with filters and prunes through the API', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
    for (let i = 0; i < 6; i++) await post(`${relay.url}/hooks/${i % 2 ? 'odd' : 'even'}`, `{"i":${i}}`);
    assert.deepEqual(
      (await api.listDeliveries({ channel: 'odd' })).deliveries.map((d) => d.seq),
      [6, 4, 2],
    );
    assert.deepEqual(
      (await api.listDeliveries({ since: 4 })).deliveries.map((d) => d.seq),
      [6, 5],
    );
    assert.deepEqual(
      (await api.listDeliveries({ limit: 2 })).deliveries.map((d) => d.seq),
      [6, 5],
    );
    assert.deepEqual(await api.prune({ keep: 2 }), { removed: 4, remaining: 2 });
    assert.deepEqual(
      (await api.listDeliveries({})).deliveries.map((d) => d.seq),
      [6, 5],
    );
    await assert.rejects(api.getDelivery(1), /404/);
    await assert.rejects(api.prune({ keep: -1 }), /400/);
  });
});
