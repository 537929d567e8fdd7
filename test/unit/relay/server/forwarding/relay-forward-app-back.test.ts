// Pins issue 43: the relay's own --forward drains when the app comes back, as `forward` does. Real
// relay and app processes, walked over both stores and with or without a kill -9 of the relay
// while the app is down: deliveries answered 200 while nothing listens at the app's port are held
// (no attempt spent), and all of them reach the app, each once, when it listens again. The retry
// schedule's second attempt is an hour away, so a relay that parked them on the schedule (the old
// rule: 40-57 s measured) never delivers them within the test's time.
import { strict as assert } from 'node:assert';
import { post, relayProcesses, signed, spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../../support/helpers';
import { startNats, type NatsCluster } from '../../../nats/natsServers';

const SECRET = 'app-back-secret';
const N = 20;

/** Resolves once the relay's stderr has a line matching `re` after the first `from` characters. */
function logged(relay: RelayProcess, re: RegExp, from = 0): Promise<void> {
  return relay.saw(re, { in: 'stderr', from });
}

const UNREACHABLE = /is unreachable \(ECONNREFUSED/;

for (const store of ['file', 'jetstream'] as const) {
  for (const kill of [false, true]) {
    describe(`relay --forward, app down then back (${store} store${kill ? ', relay killed -9 meanwhile' : ''})`, function () {
      this.timeout(90_000);
      const procs = relayProcesses();
      let nats: NatsCluster | undefined;
      let app: TargetApp | undefined;

      after(async () => {
        await app?.close();
        for (const p of procs.splice(0)) await p.stop('SIGKILL');
        await nats?.stop();
      });

      it('every delivery answered 200 while the app was down reaches it once when it listens again', async () => {
        const gone = await startTarget();
        const port = gone.port;
        await gone.close(); // nothing listens at the app's port
        const storeArgs = store === 'jetstream' ? ['--store', (nats = await startNats(1)).urls] : [];
        const args = ['--data', tempDir(), '--secret', SECRET, '--forward', `http://127.0.0.1:${port}/webhook`, '--retry-schedule', '0,1h', ...storeArgs];
        let relay = await spawnRelay(args);
        procs.push(relay);
        const bodies: string[] = [];
        for (let i = 0; i < N; i++) {
          const body = JSON.stringify({ n: i, store, kill });
          const r = await post(`${relay.url}/hooks/default`, body, signed(SECRET, body));
          assert.equal(r.status, 200);
          bodies.push(body);
        }
        await logged(relay, UNREACHABLE);
        if (kill) {
          await relay.stop('SIGKILL');
          relay = await spawnRelay(args);
          procs.push(relay);
          // The restarted relay found the held deliveries and the app still down (on JetStream once
          // the dead instance's claims expired and the consumer handed them out again).
          await logged(relay, UNREACHABLE);
        }
        app = await startTarget(port);
        await app.waitUntil((r) => new Set(r.map((x) => x.body.toString())).size >= N);
        await logged(relay, /answers again after [\d.]+ s/);
        const got = app.received.map((r) => r.body.toString());
        assert.deepEqual([...new Set(got)].sort(), [...bodies].sort());
        assert.equal(got.length, N, 'each delivery posted once: none had been posted before the app came back');
      });
    });
  }
}
