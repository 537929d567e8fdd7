// `service-hooks deliveries` and `service-hooks replay` as real processes against a real relay process.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { verify } from '../../../../src/core/signing';
import { post, runCliBare, signed, spawnRelayWithData, startTarget, tempDir, type RelayProcess, type TargetApp } from '../support/helpers';

const SECRET = 'replay-secret';

describe('relay CLI: deliveries and replay', function () {
  this.timeout(60_000);
  let relay: RelayProcess;
  let target: TargetApp;
  let data: string;
  let admin: string;
  const body = '{ "action": "opened",\n  "n": 1 }\n';

  before(async () => {
    target = await startTarget();
    ({ relay, data, admin } = await spawnRelayWithData(['--secret', SECRET, '--forward', target.url]));
    assert.equal((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body, { 'x-service-event': 'issues' }))).status, 200);
    assert.equal((await post(`${relay.url}/hooks/default`, body, { 'x-service-signature': 'sha256=00' })).status, 401);
    await target.waitFor(1);
  });
  after(async () => {
    await relay.stop('SIGKILL');
    await target.close();
  });

  it('lists the journal with the token read from --data', async () => {
    const r = await runCliBare(['deliveries', '--relay', relay.url, '--data', data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^#1 .* default {2}issues {2}verified .* forward: ok 200$/m);
    assert.match(r.stdout, /^#2 .* rejected \(/m);
    const json = await runCliBare(['deliveries', '--relay', relay.url, '--data', data, '--status', 'rejected', '--json']);
    assert.deepEqual(
      (JSON.parse(json.stdout) as { deliveries: { seq: number }[] }).deliveries.map((d) => d.seq),
      [2],
    );
  });

  it('replays byte-exact to another URL, and re-signs with --resign-secret', async () => {
    const other = await startTarget();
    try {
      const env = { SERVICE_HOOKS_RELAY_TOKEN: admin };
      const asIs = await runCliBare(['replay', '1', '--relay', relay.url, '--to', other.url], env);
      assert.equal(asIs.code, 0, asIs.stderr);
      assert.match(asIs.stdout, /^ok {2}http:\/\/127\.0\.0\.1:\d+\/webhook {2}HTTP 200/m);
      await other.waitFor(1);
      assert.equal(other.received[0]!.body.toString(), body);
      assert.ok(verify(other.received[0]!.body, String(other.received[0]!.headers['x-service-signature']), [SECRET]).ok);
      const resigned = await runCliBare(['replay', '1', '--relay', relay.url, '--to', other.url, '--resign-secret', 'local'], env);
      assert.equal(resigned.code, 0, resigned.stderr);
      await other.waitFor(2);
      assert.ok(verify(other.received[1]!.body, String(other.received[1]!.headers['x-service-signature']), ['local']).ok);
    } finally {
      await other.close();
    }
  });

  it('exits 1 when the replay target fails, 2 on usage errors, and says when no relay answers', async () => {
    target.status = 500;
    const failed = await runCliBare(['replay', '1', '--relay', relay.url, '--data', data]);
    target.status = 200;
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /^failed .* HTTP 500/m);
    assert.equal((await runCliBare(['replay', 'x', '--data', data])).code, 2);
    assert.equal((await runCliBare(['deliveries', '--limit', '-1', '--data', data])).code, 2);
    const noToken = await runCliBare(['deliveries', '--data', join(tempDir(), 'none')]);
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /no relay token/);
    const down = await runCliBare(['deliveries', '--relay', 'http://127.0.0.1:1', '--token', 't']);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /no relay answers at http:\/\/127\.0\.0\.1:1/);
    const missing = await runCliBare(['replay', '99', '--relay', relay.url, '--data', data]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /404/);
  });
});
