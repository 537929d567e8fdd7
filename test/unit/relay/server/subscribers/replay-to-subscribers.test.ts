// Issue 27 §3: a channel token replays its own channel's deliveries to its subscribers. A real
// relay, a real `service-hooks forward` child with the channel's token and a real app on
// 127.0.0.1: `service-hooks replay <seq>` of a delivery only the subscriber forwarded reaches the
// app a second time through the subscriber (its resume point stays: the next delivery arrives
// once); another channel's token gets 404; with no subscriber connected, 409.
import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { SUBSCRIBER_TARGET, type ForwardAttempt } from '../../../../../src/core/relay/protocol';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { RelayApi } from '../../../../../relay/client/api';
import { post, runCliBare, signed, startTarget, tempDir, type TargetApp } from '../../support/helpers';
import { until } from '../../../../support/until';
import { forwarder as forwardChild, STAMP } from '../../support/forwarderProcess';

const ALICE = 'alice-replay-secret-0123456789abcdef';
const BOB = 'bob-replay-secret-0123456789abcdef';

/** POST /api/deliveries/<seq>/replay with `body` and `token`: the status and error. */
async function replayApi(
  relay: RelayServer,
  seq: number,
  token: string,
  body: unknown,
): Promise<{ status: number; json: { error?: string; subscribers?: number } }> {
  const res = await request(`${relay.url}/api/deliveries/${seq}/replay`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: (await res.body.json()) as { error?: string; subscribers?: number } };
}

describe("replay to the channel's subscribers (real relay, forward child and app)", function () {
  this.timeout(60_000);
  let relay: RelayServer;
  let app: TargetApp;
  let alice: string;
  let bob: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const api = new RelayApi({ baseUrl: relay.url, token: relay.token });
    alice = (await api.createChannel({ name: 'alice', secrets: [ALICE] })).token;
    bob = (await api.createChannel({ name: 'bob', secrets: [BOB] })).token;
    app = await startTarget();
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await app.close();
    await relay.close();
  });

  /** Posts `body` to alice's ingress, signed; its seq. */
  const deliver = async (body: string) => {
    const r = await post(`${relay.url}/hooks/alice`, body, signed(ALICE, body, { 'x-service-event': 'push' }));
    assert.equal(r.status, 200);
    return (r.json as { seq: number }).seq;
  };
  /** Resolves with the first attempt recorded for `seq` that satisfies `pred`. */
  const attempt = (seq: number, pred: (a: ForwardAttempt) => boolean) => {
    const seen: ForwardAttempt[] = [];
    const listener = (s: number, a: ForwardAttempt) => s === seq && seen.push(a);
    relay.store.on('forward', listener);
    return until(
      () => seen.find(pred),
      (wake) => (relay.store.on('forward', wake), () => (relay.store.off('forward', wake), relay.store.off('forward', listener))),
    );
  };

  it('with the channel token, `service-hooks replay` of its own delivery reaches the app again through the subscriber', async () => {
    const fwd = await forwardChild(['--relay', relay.url, '--token', alice, '--to', app.url, '--state', join(tempDir(), 'f.json')]);
    children.push(fwd.child);
    await fwd.saw(/connected/);
    const firstOk = attempt(1, (a) => a.target === SUBSCRIBER_TARGET && a.ok && !a.replay);
    const seq = await deliver('{"n":1}');
    assert.equal(seq, 1);
    await firstOk; // the subscriber forwarded it and acknowledged it: its only target is the subscriber
    assert.deepEqual(
      relay.store.get(1)?.summary.forward.map((f) => f.target),
      [SUBSCRIBER_TARGET],
    );

    const replayed = attempt(1, (a) => a.replay === true);
    const r = await runCliBare(['replay', '1', '--relay', relay.url], { SERVICE_HOOKS_RELAY_TOKEN: alice });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /sent #1 again to 1 subscriber/);
    await app.waitFor(2);
    assert.deepEqual(
      app.received.map((x) => x.body.toString()),
      ['{"n":1}', '{"n":1}'],
      'the app got the same bytes a second time',
    );
    assert.equal(app.received[1]!.headers['x-service-signature'], signed(ALICE, '{"n":1}')['x-service-signature'], 'as received: the original signature');
    await fwd.saw(new RegExp(`${STAMP.source}#1 alice push → 200 [\\d.]+ ms \\(replay\\)$`, 'm'));
    const recorded = await replayed;
    assert.equal(recorded.status, 200);
    assert.equal(recorded.ok, true);

    // The resume point did not move back: the next delivery arrives once, and #1 no third time.
    await deliver('{"n":2}');
    await app.waitFor(3);
    await fwd.saw(new RegExp(`${STAMP.source}#2 alice push → 200`, 'm'));
    assert.deepEqual(
      app.received.map((x) => x.body.toString()),
      ['{"n":1}', '{"n":1}', '{"n":2}'],
    );
  });

  it("another channel's token gets 404 for it; the admin token reaches its subscribers too", async () => {
    const fwd = await forwardChild(['--relay', relay.url, '--token', alice, '--to', app.url, '--state', join(tempDir(), 'f.json')]);
    children.push(fwd.child);
    await fwd.saw(/connected/);
    const firstOk = attempt(1, (a) => a.target === SUBSCRIBER_TARGET && a.ok);
    await deliver('{"n":1}');
    await firstOk;
    const other = await replayApi(relay, 1, bob, { to: 'subscribers' });
    assert.equal(other.status, 404);
    assert.equal(other.json.error, 'no delivery 1');
    const cliOther = await runCliBare(['replay', '1', '--relay', relay.url], { SERVICE_HOOKS_RELAY_TOKEN: bob });
    assert.equal(cliOther.code, 1);
    assert.match(cliOther.stderr, /404 no delivery 1/);
    assert.equal(app.received.length, 1, "bob's token sent nothing to alice's subscriber");

    const asAdmin = await replayApi(relay, 1, relay.token, { to: 'subscribers' });
    assert.deepEqual(asAdmin, { status: 202, json: { subscribers: 1 } });
    await app.waitFor(2);
  });

  it('with no subscriber connected: 409 naming the channel, from the API and the CLI', async () => {
    await deliver('{"n":1}');
    const r = await replayApi(relay, 1, alice, { to: 'subscribers' });
    assert.equal(r.status, 409);
    assert.match(r.json.error!, /^no subscriber of channel alice is connected/);
    const c = await runCliBare(['replay', '1', '--to', 'subscribers', '--relay', relay.url], { SERVICE_HOOKS_RELAY_TOKEN: alice });
    assert.equal(c.code, 1);
    assert.match(c.stderr, /^replay: no subscriber of channel alice is connected/m);
    // A subscriber of another channel (bob) is no subscriber of alice's.
    const fwd = await forwardChild(['--relay', relay.url, '--token', bob, '--to', app.url, '--state', join(tempDir(), 'f.json')]);
    children.push(fwd.child);
    await fwd.saw(/connected/);
    assert.equal((await replayApi(relay, 1, relay.token, { to: 'subscribers' })).status, 409);
    assert.equal(app.received.length, 0);
  });
});
