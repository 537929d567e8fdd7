// The `relay` command as a real process (the CLI bundle, real signals): its first start prints
// the token once and keeps it 0600 in a 0700 data folder, usage errors exit 2, --keep prunes at
// start, and after kill -9 or SIGTERM every acknowledged delivery is journaled and still forwarded.
import { strict as assert } from 'node:assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RelayApi } from '../../../../relay/client';
import { loadThenKill, post, relayProcesses, spawnRelay, startTarget, tempDir } from '../support/helpers';

const SECRET = 'proc-secret';

describe('relay process (dist-style CLI bundle, real signals)', function () {
  this.timeout(120_000);
  const procs = relayProcesses();

  it('prints its address, creates the token 0600 in a 0700 data dir and prints it only the first time', async () => {
    const data = join(tempDir(), 'relay-data');
    const first = await spawnRelay(['--data', data]);
    procs.push(first);
    const token = readFileSync(join(data, 'token'), 'utf8').trim();
    assert.match(first.stdout(), new RegExp(`relay token \\(shown once; stored in .*\\): ${token}`));
    assert.equal(statSync(data).mode & 0o777, 0o700);
    assert.equal(statSync(join(data, 'token')).mode & 0o777, 0o600);
    assert.equal(await first.stop('SIGTERM'), 0);
    assert.doesNotMatch(first.stderr(), new RegExp(token));
    const second = await spawnRelay(['--data', data]);
    procs.push(second);
    // Shown only the first time (the page and metrics lines say 'token', never the token itself).
    assert.doesNotMatch(second.stdout(), /relay token/);
    assert.ok(!second.stdout().includes(token), 'the token is printed again');
    assert.equal((await new RelayApi({ baseUrl: second.url, token }).status()).port, second.port);
    assert.equal(await second.stop('SIGINT'), 0);
  });

  it('usage errors exit 2', async () => {
    await assert.rejects(spawnRelay(['--data', tempDir(), '--allow-cidr', 'nope']), /exited with 2/);
    await assert.rejects(spawnRelay(['--data', tempDir(), '--max-body', 'lots']), /exited with 2/);
    await assert.rejects(spawnRelay(['--data', tempDir(), '--keep', '0']), /exited with 2/);
    await assert.rejects(spawnRelay(['--data', tempDir(), '--max-age', 'forever']), /exited with 2/);
    await assert.rejects(spawnRelay(['--data', tempDir(), '--snapshot-every', 'often']), /exited with 2/);
  });

  it('--keep applies the count retention at start-up: the oldest deliveries go, the newest stay', async () => {
    const data = join(tempDir(), 'relay-data');
    const first = await spawnRelay(['--data', data]);
    procs.push(first);
    for (let i = 0; i < 3; i++) assert.equal((await post(`${first.url}/hooks/default`, JSON.stringify({ i }))).status, 200);
    assert.equal(await first.stop('SIGTERM'), 0);
    const second = await spawnRelay(['--data', data, '--keep', '1']);
    procs.push(second);
    const token = readFileSync(join(data, 'token'), 'utf8').trim();
    const { deliveries } = await new RelayApi({ baseUrl: second.url, token }).listDeliveries();
    assert.deepEqual(
      deliveries.map((d) => d.seq),
      [3],
    );
    assert.equal(await second.stop('SIGTERM'), 0);
  });

  it('kill -9 during a load: every delivery answered 200 is in the journal after restart and reaches the target', async () => {
    const target = await startTarget();
    const data = tempDir();
    const args = ['--data', data, '--secret', SECRET, '--forward', target.url];
    const relay = await spawnRelay(args);
    procs.push(relay);
    const N = 300;
    const acked = await loadThenKill(relay, {
      secret: SECRET,
      total: N,
      concurrency: 16,
      killAfter: N / 3,
      body: (i) => JSON.stringify({ delivery: i, pad: 'x'.repeat(200) }),
    });
    assert.ok(acked.size >= N / 3, `acked ${acked.size}`);
    const again = await spawnRelay(args);
    procs.push(again);
    const token = readFileSync(join(data, 'token'), 'utf8').trim();
    const api = new RelayApi({ baseUrl: again.url, token });
    for (const [seq, body] of acked) {
      const d = await api.getDelivery(seq);
      assert.equal(Buffer.from(d.bodyBase64, 'base64').toString(), body, `seq ${seq}`);
    }
    const wanted = new Set(acked.values());
    await target.waitUntil((r) => {
      const seen = new Set(r.filter((x) => x.status === 200).map((x) => x.body.toString()));
      for (const b of wanted) if (!seen.has(b)) return false;
      return true;
    });
    assert.equal(await again.stop('SIGTERM'), 0);
    await target.close();
  });

  it('SIGTERM stops cleanly and leaves pending forwards in the journal; the next start resumes them', async () => {
    const target = await startTarget();
    target.status = 503;
    const data = tempDir();
    const first = await spawnRelay(['--data', data, '--forward', target.url, '--retry-schedule', '0,1h']);
    procs.push(first);
    const r = await post(`${first.url}/hooks/default`, '{"pending":true}');
    assert.equal(r.status, 200);
    await target.waitFor(1);
    assert.equal(await first.stop('SIGTERM'), 0);
    assert.match(first.stderr(), /pending forwards stay in the journal/);
    target.status = 200;
    // --time-scale 1e9: the next scheduled attempt (1 h after the first) is due within a millisecond.
    const second = await spawnRelay(['--data', data, '--forward', target.url, '--retry-schedule', '0,1h', '--time-scale', '1e9']);
    procs.push(second);
    await target.waitUntil((rs) => rs.some((x) => x.status === 200 && x.body.toString() === '{"pending":true}'));
    assert.match(second.stderr(), /resuming 1 pending forward/);
    assert.equal(await second.stop('SIGTERM'), 0);
    await target.close();
  });
});
