// Issue 10's done-when: a relay killed (-9) while the app is down, restarted with the app up,
// forwards every acknowledged delivery promptly, without waiting for the retry schedule (whose
// next attempt is a minute away: longer than this test may take).
import { strict as assert } from 'node:assert';
import { loadThenKill, relayProcesses, spawnRelay, startTarget, tempDir } from '../../support/helpers';

const SECRET = 'restart-secret';

describe('relay forwarding across kill -9 with the app down', function () {
  this.timeout(60_000);
  const procs = relayProcesses();

  it('after a restart with the app up, every acknowledged delivery arrives (the service schedule is not waited for)', async () => {
    const probe = await startTarget();
    const port = probe.port;
    await probe.close(); // the app is down: its port refuses connections
    const data = tempDir();
    const args = ['--data', data, '--secret', SECRET, '--forward', `http://127.0.0.1:${port}/webhook`];
    const relay = await spawnRelay(args);
    procs.push(relay);
    const N = 200;
    const acked = new Set(
      (await loadThenKill(relay, { secret: SECRET, total: N, concurrency: 8, killAfter: N / 2, body: (i) => JSON.stringify({ delivery: i }) })).values(),
    );
    assert.ok(acked.size >= N / 2, `acked ${acked.size}`);

    const app = await startTarget(port);
    try {
      const again = await spawnRelay(args);
      procs.push(again);
      await app.waitUntil((r) => {
        const seen = new Set(r.filter((x) => x.status === 200).map((x) => x.body.toString()));
        for (const b of acked) if (!seen.has(b)) return false;
        return true;
      });
      assert.match(again.stderr(), /resuming \d+ pending forward/);
      assert.equal(await again.stop('SIGTERM'), 0);
    } finally {
      await app.close();
    }
  });
});
