// The https trust of the editor's forward set-ups (issue 38 item 7), src/extension/relay/forwardTrust.ts,
// against a real https app whose certificate a test CA (openssl) signed: the CA file setting is
// trusted (read at each attempt), a set-up with Skip verification reaches its app on this machine
// without it, and an untrusted certificate says which of the two fits, in the editor's words.
// A CA file that is missing or no certificate is refused in words. A replay re-signed (the
// editor's Replay Delivery) goes with the same trust.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import * as client from '../../../../relay/client';
import type { DeliveryMessage } from '../../../../src/core/relay/protocol';
import { sign, SIGNATURE_HEADER } from '../../../../src/core/signing';
import { caFileProblem, forwardAttempt } from '../../../../src/extension/relay/forwardTrust';
import { makeTestCerts, type TestCerts } from '../../relay/support/certs';
import { tempDir } from '../../relay/support/helpers';

function delivery(): DeliveryMessage['delivery'] {
  const body = Buffer.from('{"n":1}');
  return {
    seq: 1,
    channel: 'dev',
    receivedAt: '2026-11-27T00:00:00.000Z',
    verification: 'verified',
    event: 'push',
    size: body.length,
    forward: [],
    headers: { 'content-type': 'application/json', 'x-service-event': 'push' },
    bodyBase64: body.toString('base64'),
  };
}

describe('forward set-ups: https trust (CA file setting, Skip verification)', function () {
  this.timeout(30_000);
  let certs: TestCerts;
  let server: Server;
  let url: string;
  const got: string[] = [];
  const signatures: (string | undefined)[] = [];
  before(async () => {
    certs = makeTestCerts();
    server = createServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => (got.push(body), signatures.push(req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined), res.writeHead(204).end()));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}/webhook`;
  });
  after(() => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())));

  const attempt = (caFile: () => string, skipVerify = false, lines: string[] = []) =>
    forwardAttempt(client, [{ to: url, ...(skipVerify ? { skipVerify } : {}) }], caFile, 5_000, (l) => lines.push(l));

  it('the CA file setting is trusted, and read at each attempt (a change applies to the next delivery)', async () => {
    let ca = '';
    const send = attempt(() => ca);
    const before = await send(delivery(), url, new AbortController().signal);
    assert.equal(before.status, undefined);
    assert.match(
      before.error!,
      /^UNABLE_TO_VERIFY_LEAF_SIGNATURE: the app's certificate at 127\.0\.0\.1:\d+: its CA is not trusted here: set serviceHooks\.relay\.forwardCa/,
    );
    assert.match(before.error!, /or "Skip verification" in Forward Webhooks to Local App…/, 'a loopback app: skipping is offered too');
    ca = certs.caCert;
    const after = await send(delivery(), url, new AbortController().signal);
    assert.equal(after.status, 204, JSON.stringify(after));
    assert.equal(got.at(-1), '{"n":1}');
  });

  it('a set-up with Skip verification reaches its app on this machine with no CA', async () => {
    const r = await attempt(() => '', true)(delivery(), url, new AbortController().signal);
    assert.equal(r.status, 204, JSON.stringify(r));
  });

  it('a replay re-signed goes with the same trust (CA file, Skip verification) and the new signature', async () => {
    for (const send of [attempt(() => certs.caCert), attempt(() => '', true)]) {
      const r = await send(delivery(), url, new AbortController().signal, { resignSecret: 'fresh-secret' });
      assert.equal(r.status, 204, JSON.stringify(r));
      assert.equal(signatures.at(-1), sign('fresh-secret', Buffer.from('{"n":1}')));
    }
  });

  it('a CA setting that went bad is told and left out (the usual roots only)', async () => {
    const lines: string[] = [];
    const missing = join(tempDir('sh-ca-'), 'gone.pem');
    const r = await attempt(() => missing, false, lines)(delivery(), url, new AbortController().signal);
    assert.match(r.error!, /UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    assert.deepEqual(lines, [`serviceHooks.relay.forwardCa: There is no file at ${missing}. Forwarding trusts the usual roots only.`]);
  });

  it('caFileProblem: missing, relative, a folder, a key instead of a certificate; the CA passes', () => {
    const dir = tempDir('sh-ca-');
    mkdirSync(join(dir, 'folder.pem'));
    assert.equal(caFileProblem(''), undefined);
    assert.equal(caFileProblem(certs.caCert), undefined);
    assert.equal(caFileProblem(join(dir, 'nope.pem')), `There is no file at ${join(dir, 'nope.pem')}.`);
    assert.equal(caFileProblem('ca.pem'), "Give the CA file's full path (ca.pem is relative).");
    assert.equal(caFileProblem(join(dir, 'folder.pem')), `${join(dir, 'folder.pem')} is a folder: give the CA's PEM file.`);
    assert.match(caFileProblem(certs.serverKey)!, /holds no PEM certificate \(-----BEGIN CERTIFICATE-----\): give the CA's certificate, not a key/);
  });
});
