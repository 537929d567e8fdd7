// Pins issue 36 item 20 (Copy as cURL): the command it offers to re-sign a delivery (its cURL has
// the signature redacted) sends the same bytes through `service-hooks send` with the secret from
// $WEBHOOK_SECRET, and the receiver gets them signed with that secret; no secret in the command.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildResignCommand } from '../../../../src/core/curl';
import { sign } from '../../../../src/core/signing';
import { cli, startTarget, type TargetApp } from '../../relay/support/helpers';

const run = promisify(execFile);

describe('Copy as cURL: the re-signing command', function () {
  this.timeout(60_000);
  let target: TargetApp;
  before(async () => {
    target = await startTarget();
  });
  after(() => target.close());

  it("sends the delivery's exact bytes, signed with $WEBHOOK_SECRET, as its event; the secret is not in the command", async () => {
    const secret = 'resign-secret-0123456789';
    const bodies = [Buffer.from('{"action":"opened","q":"it\'s 100% \\"ok\\"","n":"é"}'), Buffer.from('{"name":"caf\xe9"}', 'latin1')];
    for (const [i, body] of bodies.entries()) {
      const command = buildResignCommand(target.url, 'pull_request', body);
      assert.ok(!command.includes(secret));
      const shell = `service_hooks() { "${process.execPath}" "${await cli()}" "$@"; }; ${command.replace('service-hooks send', 'service_hooks send')}`;
      await run('bash', ['-c', shell], { env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret } }).catch((err: { stderr?: string }) => {
        // `send` takes UTF-8 JSON only: a body that is not is refused (exit 2), nothing sent.
        if (i === 0) throw err;
        assert.match(String(err.stderr), /not valid JSON|UTF-8/);
      });
      if (i > 0) continue;
      await target.waitFor(1);
      const got = target.received[0]!;
      assert.ok(got.body.equals(body), 'the same bytes');
      assert.equal(got.headers['x-service-event'], 'pull_request');
      assert.equal(got.headers['x-service-signature'], sign(secret, body));
    }
  });
});
