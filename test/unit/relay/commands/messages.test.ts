// Messages a new user meets with a TLS relay and a channel token (#29 item 8): real relays on
// 127.0.0.1 port 0, the real client and commands.
import { strict as assert } from 'node:assert';
import { Readable, Writable } from 'node:stream';
import { RelayApi } from '../../../../relay/client/api';
import type { CliIO } from '../../../../relay/cli/io';
import forwardCommand from '../../../../relay/commands/forward';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { loadTls } from '../../../../relay/server/tls';
import { describeConnectError, parseRelayAddress, type RelayAddress } from '../../../../src/core/tree';
import { makeTestCerts } from '../support/certs';
import { tempDir } from '../support/helpers';
import { call } from '../support/publicHelpers';

function captureIo(): CliIO & { err: () => string } {
  let err = '';
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const stderr = new Writable({ write: (c, _e, cb) => ((err += c.toString()), cb()) });
  return { stdout: sink, stderr, stdin: Readable.from([]), env: {}, cwd: process.cwd(), stopSignal: new AbortController().signal, err: () => err };
}

describe('messages with a TLS relay and channel tokens', function () {
  this.timeout(30_000);
  let relay: RelayServer | undefined;
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  it("Connect to Relay with http:// to a TLS relay says 'use https://'", async () => {
    const certs = makeTestCerts();
    relay = await startRelay({ port: 0, dataDir: tempDir(), tls: loadTls({ cert: certs.serverCert, key: certs.serverKey }) });
    const address = parseRelayAddress(`http://127.0.0.1:${relay.port}`) as RelayAddress;
    assert.equal(address.tls, false);
    const err = await new RelayApi({ baseUrl: address.httpUrl, token: relay.token }).status().then(
      () => assert.fail('http:// to a TLS port answered'),
      (e: unknown) => e,
    );
    assert.equal(
      describeConnectError(address.label, err as { code?: string; message?: string }, address.tls),
      `${address.label} closed the connection without answering: it speaks TLS on this port, so use https://${address.label}`,
    );
  });

  it("forward --channel bob with alice's token says the token is limited to channel 'alice'", async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir() });
    const created = await call('POST', `${relay.url}/api/channels`, relay.token, { name: 'alice', secrets: ['alice-secret-0123456789'] });
    const status = await call('GET', `${relay.url}/api/status`, created.json.token);
    assert.deepEqual(
      status.json.channels.map((c: { name: string; ingressUrl: string; received: number }) => [c.name, c.ingressUrl, c.received]),
      [['alice', `${relay.url}/hooks/alice`, 0]],
      'a channel token sees its channel (and its URL) before its first delivery',
    );
    assert.equal(status.json.ingressBase, relay.url, 'the relay says where its ingress is');
    const io = captureIo();
    const code = await forwardCommand.run(
      ['--relay', `ws://127.0.0.1:${relay.port}`, '--token', created.json.token, '--channel', 'bob', '--to', 'http://127.0.0.1:9/'],
      io,
    );
    assert.equal(code, 2, 'a usage error: the flags ask for what the token cannot read');
    assert.match(io.err(), /HTTP 403\): this token is limited to channel 'alice': --channel asks for another/);
    assert.doesNotMatch(io.err(), /Host or Origin/);
  });
});
