// Rejected deliveries have their own retention and never push out an accepted one (issue 20
// item 4): with --keep 15, 20 junk posts used to evict 10 unread verified deliveries.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, relayProcesses, signed, spawnRelay, tempDir, type RelayProcess } from '../../support/helpers';
import { call } from '../../support/publicHelpers';

const SECRET = 'rejected-retention-secret-0123';

describe('relay retention: rejected deliveries apart (relay process)', function () {
  this.timeout(60_000);
  const procs = relayProcesses();
  const start = async (data: string, extra: string[] = []) => {
    const r = await spawnRelay(['--data', data, '--secret', SECRET, '--keep', '15', ...extra]);
    procs.push(r);
    return r;
  };
  const listed = async (r: RelayProcess, token: string) =>
    ((await call('GET', `${r.url}/api/deliveries?limit=1000`, token)).json.deliveries as { seq: number; verification: string }[]).reverse();

  it('--keep counts accepted deliveries only; --keep-rejected keeps the newest N rejected, across restarts', async () => {
    const data = tempDir();
    let relay = await start(data, ['--keep-rejected', '5']);
    const token = readFileSync(join(data, 'token'), 'utf8').trim();
    const verified: number[] = [];
    for (let i = 0; i < 10; i++) {
      const body = JSON.stringify({ i });
      verified.push(((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).json as { seq: number }).seq);
    }
    const junk: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await post(`${relay.url}/hooks/default`, `{"junk":${i}}`, { 'x-service-signature': 'sha256=00' });
      assert.equal(r.status, 401);
      junk.push(junk.length === 0 ? verified.at(-1)! + 1 : junk.at(-1)! + 1);
    }
    // Retention runs at start (and every minute).
    await relay.stop('SIGTERM');
    relay = await start(data, ['--keep-rejected', '5']);
    let rows = await listed(relay, token);
    assert.deepEqual(
      rows.filter((d) => d.verification === 'verified').map((d) => d.seq),
      verified,
      'no verified delivery evicted by junk',
    );
    assert.deepEqual(
      rows.filter((d) => d.verification === 'rejected').map((d) => d.seq),
      junk.slice(-5),
      'the newest 5 rejected stay',
    );
    const status = await call('GET', `${relay.url}/api/status`, token);
    assert.equal(status.json.channels[0].rejected, 5);
    assert.equal(status.json.channels[0].verified, 10);

    // Five more accepted: --keep 15 holds all 15 of them, whatever the rejected count.
    for (let i = 10; i < 15; i++) {
      const body = JSON.stringify({ i });
      verified.push(((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).json as { seq: number }).seq);
    }
    await relay.stop('SIGTERM');
    relay = await start(data, ['--keep-rejected', '5']);
    rows = await listed(relay, token);
    assert.deepEqual(
      rows.filter((d) => d.verification === 'verified').map((d) => d.seq),
      verified,
    );
    assert.deepEqual(
      rows.filter((d) => d.verification === 'rejected').map((d) => d.seq),
      junk.slice(-5),
    );
    assert.equal((await call('GET', `${relay.url}/api/deliveries/${junk[0]}`, token)).status, 404, 'a dropped rejected delivery is gone');
  });
});
