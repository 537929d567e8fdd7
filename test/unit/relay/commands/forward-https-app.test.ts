// Pins issue 38 item 4: `service-hooks forward` posts to a local https app whose certificate a
// test CA (made by openssl here) signed: with --ca FILE, or --skip-verify (loopback targets
// only; refused for any other, exit 2); without either, the certificate error says which flag
// fits. --ca checks its file the same way when it trusts a wss:// relay address. Real relay,
// forwarder and https app processes.
import { strict as assert } from 'node:assert';
import { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { post, relayProcesses, signed, spawnRelayWithData, tempDir } from '../support/helpers';
import { call, runCli } from '../support/publicHelpers';
import { forwarder } from '../support/forwarderProcess';
import { makeTestCerts, type TestCerts } from '../support/certs';

const SECRET = 'https-app-secret-0123456789';

interface HttpsApp {
  url: string;
  port: number;
  bodies: string[];
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

async function httpsApp(certs: TestCerts, host = '127.0.0.1'): Promise<HttpsApp> {
  const bodies: string[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200).end('ok');
      for (const w of waiters.splice(0)) w();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://${host}:${port}/webhook`,
    port,
    bodies,
    waitFor: (n) =>
      new Promise<void>((resolve) => {
        const check = () => (bodies.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}

describe('service-hooks forward: a local https app (test CA, relay, forwarder and app as processes)', function () {
  this.timeout(120_000);
  const procs = relayProcesses();
  const children: ChildProcess[] = [];
  const apps: HttpsApp[] = [];
  let certs: TestCerts;
  before(() => (certs = makeTestCerts()));
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const a of apps.splice(0)) await a.close();
  });

  async function relayWithChannel() {
    const { relay, admin } = await spawnRelayWithData();
    procs.push(relay);
    const dev = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'dev', secrets: [SECRET] })).json.token as string;
    const send = async (n: number) => {
      const body = JSON.stringify({ n });
      const r = await post(`${relay.url}/hooks/dev`, body, signed(SECRET, body, { 'x-service-event': 'push' }));
      return (r.json as { seq: number }).seq;
    };
    return { relay, dev, send };
  }

  async function forwards(extra: string[], host?: string) {
    const { relay, dev, send } = await relayWithChannel();
    const app = await httpsApp(certs, host);
    apps.push(app);
    const f = await forwarder(['--relay', relay.url, '--token', dev, '--to', app.url, '--state', `${tempDir()}/s.json`, ...extra]);
    children.push(f.child);
    await f.saw(/connected/);
    return { f, app, send };
  }

  it('with --ca FILE the app gets the delivery byte-exact', async () => {
    const { f, app, send } = await forwards(['--ca', certs.caCert]);
    const seq = await send(1);
    await app.waitFor(1);
    assert.equal(app.bodies[0], JSON.stringify({ n: 1 }));
    await f.saw(new RegExp(`#${seq} dev push → 200`));
  });

  it('with --skip-verify, to a loopback app', async () => {
    const { f, app, send } = await forwards(['--skip-verify'], 'localhost');
    const seq = await send(1);
    await app.waitFor(1);
    await f.saw(new RegExp(`#${seq} dev push → 200`));
  });

  it('without either, the certificate error says --ca FILE or --skip-verify', async () => {
    const { f, app, send } = await forwards([]);
    const seq = await send(1);
    await f.saw(
      new RegExp(
        `#${seq} dev push → failed \\(UNABLE_TO_VERIFY_LEAF_SIGNATURE: the app's certificate at 127\\.0\\.0\\.1:${app.port}: its CA is not trusted here: pass --ca FILE \\(the PEM of the CA that signed it\\) or --skip-verify`,
      ),
    );
    assert.equal(app.bodies.length, 0);
  });

  it('--skip-verify is refused for a target that is not loopback; a --ca that is no PEM file exits 2 naming --ca', async () => {
    const { relay, dev } = await relayWithChannel();
    const far = await runCli(['forward', '--relay', relay.url, '--token', dev, '--to', 'https://hooks.example.com/x', '--skip-verify']);
    assert.equal(far.code, 2, far.stderr);
    assert.match(
      far.stderr,
      /--skip-verify is for an app on this machine only \(127\.0\.0\.1, ::1, localhost\); hooks\.example\.com is not: pass --ca FILE instead/,
    );
    const routed = await runCli([
      'forward',
      '--relay',
      relay.url,
      '--token',
      dev,
      '--to',
      'https://127.0.0.1:9/x',
      '--route',
      'issue=https://10.1.2.3/x',
      '--skip-verify',
    ]);
    assert.equal(routed.code, 2, routed.stderr);
    assert.match(routed.stderr, /--skip-verify .*10\.1\.2\.3 is not/);
    for (const [file, says] of [
      [`${tempDir()}/missing.pem`, /--ca: cannot read .*missing\.pem \(ENOENT\)/],
      [certs.serverKey, /--ca: .* holds no PEM certificate/],
    ] as const) {
      const r = await runCli(['forward', '--relay', relay.url, '--token', dev, '--to', 'https://127.0.0.1:9/x', '--ca', file]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, says);
      // --ca also trusts a wss:// relay address (test/unit/nats/forwardFailover.test.ts): checked the same way there.
      const wss = await runCli(['forward', '--relay', 'wss://127.0.0.1:9', '--token', dev, '--to', 'http://127.0.0.1:9/x', '--ca', file]);
      assert.equal(wss.code, 2, wss.stderr);
      assert.match(wss.stderr, says);
    }
    // Neither an https app nor a wss:// relay: nothing for --ca to trust, nor for --skip-verify to skip.
    const plainCa = await runCli(['forward', '--relay', relay.url, '--token', dev, '--to', 'http://127.0.0.1:9/x', '--ca', certs.caCert]);
    assert.equal(plainCa.code, 2, plainCa.stderr);
    assert.match(plainCa.stderr, /--ca is for https:\/\/ targets and wss:\/\/ relay addresses, and none is/);
    const wssSkip = await runCli(['forward', '--relay', 'wss://127.0.0.1:9', '--token', dev, '--to', 'http://127.0.0.1:9/x', '--skip-verify']);
    assert.equal(wssSkip.code, 2, wssSkip.stderr);
    assert.match(wssSkip.stderr, /--skip-verify is for https:\/\/ targets, and none is/);
  });
});
