// "Retry pending now" on a JetStream store (a real nats-server and relay process): forwarding is the
// consumers' shared work there, so the request posts the pending forwards from this instance, and
// the consumer's later hand-out of a forward delivered that way is acked without a second post.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { RelayApi, type Subscription } from '../../../relay/client';
import { post } from '../relay/support/helpers';
import { relayOnNatsPerSuite, watchForwards } from './relayOnNats';

const ADMIN = 'retry-now-admin-token-0123456789';
/** The consumer hands a failed forward out again this long after it failed: long after the retry settled. */
const REDELIVERY = '2500ms';

describe('retry pending now on JetStream (nats-server and relay processes)', function () {
  this.timeout(60_000);
  const running = relayOnNatsPerSuite(ADMIN, ['--retry-schedule', `0,${REDELIVERY},1h`]);
  let sub: Subscription | undefined;
  after(() => sub?.close());

  it('posts the pending forwards at once; the consumer acks its later hand-out without a second post', async () => {
    const { relay, app } = running();
    app.status = 503;
    const forwards = watchForwards(relay, ADMIN);
    sub = forwards.sub;
    const firstAttempt = forwards.next();
    const seq = ((await post(`${relay.url}/hooks/default`, '{"retry":"now"}')).json as { seq: number }).seq;
    const failed = await firstAttempt;
    assert.deepEqual([failed.seq, failed.attempt.status, failed.state?.status], [seq, 503, 'pending']);

    const api = new RelayApi({ baseUrl: relay.url, token: ADMIN });
    assert.deepEqual(await api.retryPending({ channel: 'other' }), { queued: 0 }, 'another channel has nothing pending');
    app.status = 200;
    const retried = forwards.next();
    assert.deepEqual(await api.retryPending(), { queued: 1 });
    const ok = await retried;
    assert.deepEqual(ok.state, { target: app.url, status: 'ok', attempts: 2, lastStatus: 200 });
    assert.deepEqual(await api.retryPending(), { queued: 0 }, 'nothing left pending');

    const line = `seq ${seq} to ${app.url} was already delivered`;
    while (!relay.stderr().includes(line)) await once(relay.child.stderr!, 'data'); // the relay's log
    assert.deepEqual(
      app.received.map((r) => r.status),
      [503, 200],
      'one failed post, one by the retry; none from the consumer',
    );
    assert.equal((await api.getDelivery(seq)).attempts.length, 2);
  });

  it('a hand-out that comes while "retry pending now" is posting it waits for that post: the app gets it once', async () => {
    const { relay, app } = running();
    const before = app.received.length;
    app.status = 503;
    const forwards = watchForwards(relay, ADMIN);
    try {
      const failed = forwards.next();
      const seq = ((await post(`${relay.url}/hooks/default`, '{"retry":"held"}')).json as { seq: number }).seq;
      await failed;
      // Every post after the failed one is held by the app until the test lets go: the retry's
      // (and, if the fix were missing, the consumer's second one beside it).
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      app.status = 200;
      app.hold = (_r, all) => (all.length >= before + 2 ? released : undefined);
      const settled = forwards.next();
      const { queued } = await new RelayApi({ baseUrl: relay.url, token: ADMIN }).retryPending();
      if (queued === 1) {
        // The retry is posting it: the consumer's next hand-out must wait for that post.
        const waits = `seq ${seq} to ${app.url} is being posted by "retry pending now"`;
        const second = app.waitFor(before + 3).then(() => 'posted twice');
        const waited = (async () => {
          while (!relay.stderr().includes(waits)) await once(relay.child.stderr!, 'data');
          return 'waited';
        })();
        assert.equal(await Promise.race([waited, second]), 'waited', relay.stderr().split('\n').slice(-20).join('\n'));
      } else {
        // On a loaded machine the consumer handed it out again first: retry-now left it alone.
        assert.equal(queued, 0);
        await app.waitFor(before + 2);
      }
      release();
      assert.equal((await settled).state?.status, 'ok');
      const line = `seq ${seq} to ${app.url} was already delivered`;
      if (queued === 1) while (!relay.stderr().includes(line)) await once(relay.child.stderr!, 'data');
      assert.equal(app.received.length, before + 2, 'one failed post, then one more; never two');
    } finally {
      app.hold = undefined;
      forwards.sub.close();
    }
  });
});
