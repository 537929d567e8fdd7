// CLI rough edges a new user hit (issue 28 item 14), with real child processes of the bundled CLI
// against a real relay over TLS (openssl-made certificates) on 127.0.0.1:
// - `channels list` on a relay without channels says so (it printed nothing);
// - `send` over http:// to a TLS port says to use https:// (it said UND_ERR_SOCKET other side closed);
// - `relay --public` says that its source allow-list is active and how to try it from this machine.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { makeTestCerts, type TestCerts } from '../relay/support/certs';
import { relayProcesses, tempDir, type RelayProcess } from '../relay/support/helpers';
import { runCli, spawnRelayWith } from '../relay/support/publicHelpers';

/** The relay's stdout once it holds a line matching `re` (it prints the allow-list after its ready line). */
function printed(relay: RelayProcess, re: RegExp): Promise<string> {
  return relay.saw(re, { in: 'stdout' }).then(() => relay.stdout());
}

describe('CLI rough edges: empty channel list, http:// to a TLS port, the --public allow-list', function () {
  this.timeout(60_000);
  const procs = relayProcesses();
  let certs: TestCerts;
  let relay: RelayProcess;
  let data: string;

  before(async () => {
    certs = makeTestCerts();
    data = tempDir();
    // --public without --secret: no channel is served until one is created.
    relay = await spawnRelayWith(['--public', '--host', '127.0.0.1', '--data', data, '--tls-cert', certs.serverCert, '--tls-key', certs.serverKey]);
    procs.push(relay);
  });

  it('channels list with no channels says so, and how to create one (exit 0)', async () => {
    const r = await runCli(['channels', 'list', '--relay', relay.url, '--data', data], { NODE_EXTRA_CA_CERTS: certs.caCert });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'no channels yet; create one with: service-hooks channels create NAME --generate-secret\n');
    const json = await runCli(['channels', 'list', '--json', '--relay', relay.url, '--data', data], { NODE_EXTRA_CA_CERTS: certs.caCert });
    assert.deepEqual(JSON.parse(json.stdout), { channels: [] }, 'the JSON stays a plain empty list');
  });

  it('send over http:// to a TLS port says to use https:// (exit 1); over https:// it is answered', async () => {
    const plain = relay.url.replace('https:', 'http:');
    const r = await runCli(['send', 'ping', '--to', `${plain}/hooks/default`]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(`could not deliver to ${plain}/hooks/default: this port speaks TLS: use ${relay.url.replace(/\./g, '\\.')}/hooks/default\\n`),
    );
    assert.doesNotMatch(r.stderr, /UND_ERR_SOCKET|other side closed/);
    const tls = await runCli(['send', 'ping', '--to', `${relay.url}/hooks/default`], { NODE_EXTRA_CA_CERTS: certs.caCert });
    assert.match(tls.stdout, /^403 Forbidden/m, 'over https:// the relay answers (403: loopback is not in the allow-list)');
  });

  it('a plain http:// receiver that cuts the connection is not called TLS', async () => {
    const server = createServer((s) => s.destroy()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as { port: number }).port;
      const r = await runCli(['send', 'ping', '--to', `http://127.0.0.1:${port}/`]);
      assert.equal(r.code, 1);
      assert.doesNotMatch(r.stderr, /speaks TLS/);
      assert.match(r.stderr, /could not deliver to http:\/\/127\.0\.0\.1:\d+\/: (UND_ERR_SOCKET|ECONNRESET)/);
    } finally {
      server.close();
    }
  });

  it('relay --public prints that the source allow-list is active and how to try it from loopback', async () => {
    const out = await printed(relay, /^to try it from this machine.*$/m);
    assert.match(
      out,
      /^source allow-list active: deliveries are accepted only from 203\.0\.113\.0\/24, 198\.51\.100\.0\/24 \(service\); any other source gets 403$/m,
    );
    assert.match(
      out,
      new RegExp(
        `^to try it from this machine, start with --allow-cidr loopback added \\(e\\.g\\. --allow-cidr service --allow-cidr loopback\\), then: service-hooks send ping --to ${relay.url.replace(/\./g, '\\.')}/hooks/<channel> --secret <its secret>$`,
        'm',
      ),
    );
    assert.doesNotMatch(out, new RegExp(readFileSync(join(data, 'token'), 'utf8').trim() + '.*allow'), 'no token on those lines');
  });

  it('with loopback in the allow-list it says the loopback send works as is; without an allow-list it says nothing', async () => {
    const withLoopback = await spawnRelayWith([
      '--public',
      '--host',
      '127.0.0.1',
      '--data',
      tempDir(),
      '--tls-cert',
      certs.serverCert,
      '--tls-key',
      certs.serverKey,
      '--allow-cidr',
      'service',
      '--allow-cidr',
      'loopback',
    ]);
    procs.push(withLoopback);
    const out = await printed(withLoopback, /^to try it from this machine.*$/m);
    assert.match(out, /accepted only from 203\.0\.113\.0\/24, 198\.51\.100\.0\/24 \(service\), 127\.0\.0\.0\/8, ::1\/128 \(loopback\)/);
    assert.match(out, /^to try it from this machine: service-hooks send ping --to https:\/\/127\.0\.0\.1:\d+\/hooks\/<channel>/m);
    const local = await spawnRelayWith(['--data', tempDir()]);
    procs.push(local);
    await printed(local, /^relay data in .*$/m); // the notice would come right after this line
    assert.equal(await local.stop('SIGTERM'), 0);
    assert.doesNotMatch(local.stdout(), /allow-list/);
  });
});
