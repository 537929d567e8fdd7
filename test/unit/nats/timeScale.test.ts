// --time-scale on a JetStream store (real nats-server and relay processes): the speed-up factor,
// as on the file journal and in the emulator. A retry an hour away on the schedule comes at once
// under --time-scale 1e7 (0.36 ms); read the other way round (an hour × 1e7) it would never come.
import { strict as assert } from 'node:assert';
import type { Subscription } from '../../../relay/client';
import { post } from '../relay/support/helpers';
import { relayOnNatsPerSuite, watchForwards } from './relayOnNats';

const ADMIN = 'time-scale-admin-token-0123456789';
const HOUR = 3_600_000;

describe('--time-scale on JetStream (nats-server and relay processes)', function () {
  this.timeout(60_000);
  const running = relayOnNatsPerSuite(ADMIN, ['--retry-schedule', '0,1h', '--time-scale', '1e7']);
  let sub: Subscription | undefined;
  after(() => sub?.close());

  it('speeds the retry schedule up: an hour-long wait at 1e7 is retried at once', async () => {
    const { relay, app } = running();
    app.statusFor = (_r, all) => (all.length === 1 ? 503 : 200);
    const forwards = watchForwards(relay, ADMIN);
    sub = forwards.sub;
    const first = forwards.next();
    const delivered = app.waitFor(2);
    const seq = ((await post(`${relay.url}/hooks/default`, '{"scale":"1e7"}')).json as { seq: number }).seq;
    const failed = await first;
    assert.deepEqual([failed.seq, failed.attempt.status, failed.state?.status], [seq, 503, 'pending']);
    const due = Date.parse(failed.state!.nextAttemptAt!);
    assert.ok(due < Date.now() + HOUR / 2, `the retry is due at ${failed.state!.nextAttemptAt}: the hour divided by 1e7, not multiplied`);
    await delivered;
    assert.deepEqual(
      app.received.map((r) => r.status),
      [503, 200],
    );
  });
});
