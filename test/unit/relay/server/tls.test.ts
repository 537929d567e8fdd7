// The relay over TLS (relay/server/tls.ts): HTTPS and WSS on one port with openssl-made
// certificates, the CLI trusting the CA through NODE_EXTRA_CA_CERTS (or saying so), `forward` over
// wss:// byte-exact, and SIGHUP serving a renewed certificate while refusing a pair that fails to load.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { request, Agent } from 'undici';
import { RelayApi } from '../../../../relay/client/api';
import { sign } from '../../../../src/core/signing';
import { makeTestCerts, type TestCerts } from '../support/certs';
import { cli, startTarget, tempDir, type RelayProcess } from '../support/helpers';
import { call, childEnv, runCli, spawnRelayWith } from '../support/publicHelpers';

const SECRET = 'tls-channel-secret-0123456789';

/** Runs `node cli.js forward …` until `done` resolves, collecting stderr; `wake` fires on each stderr chunk. */
async function forwardProcess(args: string[], env: Record<string, string>, wake: (stderr: string) => void) {
  const child = spawn(process.execPath, [await cli(), 'forward', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    wake(stderr);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  return { stop: () => (child.kill('SIGTERM'), exited), exited, stderr: () => stderr };
}

describe('relay over TLS: HTTPS and WSS on one port, clients trusting a test CA (real processes, openssl certificates)', function () {
  this.timeout(60_000);
  let certs: TestCerts;
  let relay: RelayProcess;
  let admin: string;
  const data = tempDir();
  before(async () => {
    certs = makeTestCerts();
    admin = 'tls-admin-token-0123456789abcdef';
    relay = await spawnRelayWith(['--data', data, '--tls-cert', certs.serverCert, '--tls-key', certs.serverKey], { SERVICE_HOOKS_RELAY_TOKEN: admin });
  });
  after(async () => {
    await relay?.stop('SIGKILL');
  });

  it('serves the API and the ingress over HTTPS; plain HTTP to the port gets no answer; an untrusted client refuses the certificate', async () => {
    assert.match(relay.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const health = await call('GET', `${relay.url}/healthz`, undefined, undefined, certs.ca);
    assert.equal(health.status, 200);
    const api = new RelayApi({ baseUrl: relay.url, token: admin, dispatcher: new Agent({ connect: { ca: certs.ca } }) });
    assert.equal((await api.status()).lastSeq >= 0, true);
    await assert.rejects(
      request(relay.url.replace('https:', 'http:') + '/healthz'),
      (e: Error & { code?: string }) => e.code !== undefined,
      'plain HTTP is not served',
    );
    await assert.rejects(
      request(`${relay.url}/healthz`),
      (e: Error & { code?: string }) => e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'without the CA the certificate is not trusted',
    );
    const health2 = await call('GET', `${relay.url}/healthz`, undefined, undefined, certs.ca);
    assert.equal(health2.status, 200, 'still serving after the refused handshakes');
  });

  it('service-hooks channels over https: trusted through NODE_EXTRA_CA_CERTS, a clear hint without it', async () => {
    const ok = await runCli(['channels', 'create', 'tls-cli', '--secret', SECRET, '--relay', relay.url], {
      SERVICE_HOOKS_RELAY_TOKEN: admin,
      NODE_EXTRA_CA_CERTS: certs.caCert,
    });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`ingress URL: ${relay.url.replace(/\./g, '\\.')}/hooks/tls-cli`));
    const untrusted = await runCli(['channels', 'list', '--relay', relay.url], { SERVICE_HOOKS_RELAY_TOKEN: admin });
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /certificate .* is not trusted .*NODE_EXTRA_CA_CERTS/);
  });

  it('service-hooks forward --relay wss://… with a channel token forwards byte-exact when NODE_EXTRA_CA_CERTS names the CA', async () => {
    const target = await startTarget();
    const made = await call('POST', `${relay.url}/api/channels`, admin, { name: 'laptop', secrets: [SECRET] }, certs.ca);
    assert.equal(made.status, 201);
    const body = Buffer.from('{"event":"push",  "spaced":  true}\n');
    const ingress = await request(made.json.ingressUrl, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': sign(SECRET, body), 'x-service-event': 'push' },
      dispatcher: new Agent({ connect: { ca: certs.ca } }),
    });
    assert.equal(ingress.statusCode, 200);
    await ingress.body.dump();

    // Changed (issue 27 §3): an untrusted certificate no longer means reconnecting forever; forward
    // says NODE_EXTRA_CA_CERTS, as `channels` does, and exits 1.
    const untrusted = await forwardProcess(
      ['--relay', relay.url.replace('https:', 'wss:'), '--token', made.json.token, '--to', target.url, '--since', '0'],
      {},
      () => undefined,
    );
    assert.equal(await untrusted.exited, 1);
    assert.match(untrusted.stderr(), /certificate at wss:\/\/127\.0\.0\.1:\d+\S* is not trusted \(\w+\): set NODE_EXTRA_CA_CERTS/);
    assert.doesNotMatch(untrusted.stderr(), /reconnecting/);
    assert.equal(target.received.length, 0, 'nothing forwarded without trusting the CA');

    const fwd = await forwardProcess(
      ['--relay', relay.url.replace('https:', 'wss:'), '--token', made.json.token, '--to', target.url, '--since', '0'],
      { NODE_EXTRA_CA_CERTS: certs.caCert },
      () => undefined,
    );
    await target.waitFor(1);
    assert.equal(await fwd.stop(), 0);
    assert.deepEqual(target.received[0]!.body, body);
    assert.equal(target.received[0]!.headers['x-service-signature'], sign(SECRET, body));
    await target.close();
  });

  it('SIGHUP serves a renewed certificate to new connections; a pair that does not load is refused and the current one stays', async () => {
    const renewed = makeTestCerts();
    const live = tempDir('sh-relay-live-certs-');
    const cert = join(live, 'relay.crt');
    const key = join(live, 'relay.key');
    copyFileSync(certs.serverCert, cert);
    copyFileSync(certs.serverKey, key);
    const r = await spawnRelayWith(['--data', tempDir(), '--tls-cert', cert, '--tls-key', key], { SERVICE_HOOKS_RELAY_TOKEN: admin });
    try {
      const served = async () => {
        const socket = connect({ host: '127.0.0.1', port: r.port, ca: [certs.ca, renewed.ca], servername: 'localhost' });
        await once(socket, 'secureConnect');
        const fp = socket.getPeerX509Certificate()!.fingerprint256;
        socket.destroy();
        return fp;
      };
      const fingerprint = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;
      const hangup = async (says: RegExp) => {
        const seen = r.stderr().length;
        r.child.kill('SIGHUP');
        while (!says.test(r.stderr().slice(seen))) await once(r.child.stderr!, 'data');
      };
      assert.equal(await served(), fingerprint(certs.serverCert));

      copyFileSync(renewed.serverCert, cert); // the new certificate, the old key: not a pair
      await hangup(/SIGHUP: the certificate was not reloaded, the current one stays: .*the key does not belong to the certificate/);
      assert.equal(await served(), fingerprint(certs.serverCert), 'the current pair stays');

      copyFileSync(renewed.serverKey, key);
      await hangup(/SIGHUP: serving the certificate in .*relay\.crt to new connections/);
      assert.equal(await served(), fingerprint(renewed.serverCert));
      assert.equal((await call('GET', `${r.url}/healthz`, undefined, undefined, renewed.ca)).status, 200);
      assert.equal(r.child.exitCode, null, 'still running');
    } finally {
      await r.stop();
    }
  });
});
