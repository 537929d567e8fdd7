// Issue 10's done-when: a relay killed (-9) while the app is down, restarted with the app up,
// forwards every acknowledged delivery promptly, without waiting for the retry schedule (whose
// next attempt is a minute away: longer than this test may take).
import { strict as assert } from 'node:assert';
import { Agent, request } from 'undici';
import { relayProcesses, signed, spawnRelay, startTarget, tempDir } from './helpers';

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
    const acked = new Set<string>();
    const agent = new Agent({ connections: 8 });
    let sent = 0;
    let killed = false;
    const worker = async () => {
      while (sent < N) {
        const body = JSON.stringify({ delivery: sent++ });
        try {
          const res = await request(`${relay.url}/hooks/default`, { method: 'POST', body, headers: signed(SECRET, body), dispatcher: agent });
          await res.body.dump();
          if (res.statusCode === 200) acked.add(body);
        } catch {
          // killed mid-request: not acknowledged, so nothing was promised
        }
        if (!killed && acked.size >= N / 2) {
          killed = true;
          relay.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await relay.exited;
    await agent.close();
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
