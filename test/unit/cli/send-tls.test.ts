// Pins issue 36 item 17 for `service-hooks send`: an https receiver whose certificate a CA this
// process does not trust signed is reported with the CA hint (NODE_EXTRA_CA_CERTS), not a bare
// error; with NODE_EXTRA_CA_CERTS set to that CA the same send is delivered.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { makeTestCerts } from '../relay/support/certs';
import { cli } from '../relay/support/helpers';

async function send(url: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [await cli(), 'send', 'push', '--to', url], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { code, stderr };
}

describe('send to an https receiver (issue 36 item 17)', function () {
  this.timeout(60_000);
  let server: Server;
  let url: string;
  let caCert: string;
  before(async () => {
    const certs = makeTestCerts();
    caCert = certs.caCert;
    server = createServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(() => new Promise((r) => server.close(r)));

  it('says the certificate is not trusted and how to trust its CA; with NODE_EXTRA_CA_CERTS it delivers', async () => {
    const untrusted = await send(url, {});
    assert.equal(untrusted.code, 1);
    assert.match(
      untrusted.stderr,
      /not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): set NODE_EXTRA_CA_CERTS to the PEM file of the CA that signed it/,
      untrusted.stderr,
    );
    const trusted = await send(url, { NODE_EXTRA_CA_CERTS: caCert });
    assert.equal(trusted.code, 0, trusted.stderr);
  });
});
