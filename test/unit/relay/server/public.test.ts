// `relay --public` as a real process: it refuses to start without TLS or --trust-proxy (exit 2);
// behind a proxy it takes only the service's networks, signed deliveries and known channels; and
// without --public a local relay keeps its implicit channels and unsigned deliveries.
import { strict as assert } from 'node:assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, relayProcesses, signed, tempDir } from '../support/helpers';
import { call, runCli, spawnRelayWith } from '../support/publicHelpers';

const SECRET = 'public-secret-0123456789';
const ADMIN = 'admin-token-from-env-0123456789';

describe('relay --public (real relay process)', function () {
  this.timeout(60_000);
  const procs = relayProcesses();

  it('refuses to start without TLS or --trust-proxy, with half a TLS pair, or with a configured channel without secrets (exit 2)', async () => {
    const data = tempDir();
    const noTls = await runCli(['relay', '--port', '0', '--data', data, '--public', '--secret', SECRET]);
    assert.equal(noTls.code, 2);
    assert.match(noTls.stderr, /--public needs HTTPS: pass --tls-cert FILE --tls-key FILE, or run behind a TLS reverse proxy and pass --trust-proxy/);
    const half = await runCli(['relay', '--port', '0', '--data', data, '--tls-cert', join(data, 'x.pem')]);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /--tls-cert and --tls-key go together/);
    const missing = await runCli(['relay', '--port', '0', '--data', data, '--tls-cert', join(data, 'x.pem'), '--tls-key', join(data, 'y.pem')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--tls-cert .*x\.pem: no such file/);
    const cfg = join(data, 'relay.json');
    writeFileSync(cfg, JSON.stringify({ channels: { open: {}, closed: { secrets: ['s-closed-0123456789'] } } }));
    const bare = await runCli(['relay', '--port', '0', '--data', data, '--public', '--trust-proxy', '127.0.0.1', '--host', '127.0.0.1', '--config', cfg]);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /never accepts unverified deliveries: give channel\(s\) 'open' secrets/);
    const badUrl = await runCli(['relay', '--port', '0', '--data', data, '--public-url', 'ftp://x']);
    assert.equal(badUrl.code, 2);
    const shortToken = await runCli(['relay', '--port', '0', '--data', data], { SERVICE_HOOKS_RELAY_TOKEN: 'short' });
    assert.equal(shortToken.code, 2);
    assert.match(shortToken.stderr, /SERVICE_HOOKS_RELAY_TOKEN must be at least 16 characters/);
  });

  it('behind a proxy: only the service networks, only signed deliveries, only known channels; channels need secrets; admin token from the environment', async () => {
    const data = tempDir();
    const relay = await spawnRelayWith(['--data', data, '--public', '--trust-proxy', '127.0.0.1', '--host', '127.0.0.1', '--secret', SECRET], {
      SERVICE_HOOKS_RELAY_TOKEN: ADMIN,
    });
    procs.push(relay);
    assert.equal(existsSync(join(data, 'token')), false, 'no token file when the environment gives it');
    const body = JSON.stringify({ from: 'service' });
    const fromService = { 'x-forwarded-for': '203.0.113.7' };
    // --allow-cidr service applies: a loopback source (no proxy header) is refused.
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body))).status, 403);
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body, fromService))).status, 200);
    assert.equal((await post(`${relay.url}/hooks`, body, fromService)).status, 401, 'unsigned is never accepted');
    const unknown = await post(`${relay.url}/hooks/somebody`, body, signed(SECRET, body, fromService));
    assert.equal(unknown.status, 404, 'no implicit channels');
    assert.equal((await call('GET', `${relay.url}/api/status`, 'wrong-token-0123456789')).status, 401);
    assert.equal((await call('GET', `${relay.url}/api/status`, ADMIN)).status, 200);
    const noSecret = await call('POST', `${relay.url}/api/channels`, ADMIN, { name: 'alice', secrets: [] });
    assert.equal(noSecret.status, 400);
    assert.match(noSecret.json.error, /--public relay .* at least one secret/);
    const made = await call('POST', `${relay.url}/api/channels`, ADMIN, { name: 'alice', secrets: ['alice-secret-0123456789'] });
    assert.equal(made.status, 201);
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed('alice-secret-0123456789', body, fromService))).status, 200);
  });

  it('--trust-proxy names whom to trust: X-Forwarded-For from any other peer is ignored; --public without TLS binds loopback', async () => {
    // No --host: plain HTTP behind a proxy listens on loopback only (spawnRelay waits for 127.0.0.1).
    const elsewhere = await spawnRelayWith(['--data', tempDir(), '--public', '--trust-proxy', '10.20.30.40', '--secret', SECRET]);
    procs.push(elsewhere);
    assert.match(elsewhere.stdout(), /relay listening on http:\/\/127\.0\.0\.1:/);
    const body = JSON.stringify({ forged: true });
    // This client is not the proxy (10.20.30.40): its forged header does not pass the allow-list.
    assert.equal((await post(`${elsewhere.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '203.0.113.7' }))).status, 403);

    const behind = await spawnRelayWith(['--data', tempDir(), '--public', '--trust-proxy', '127.0.0.1', '--secret', SECRET]);
    procs.push(behind);
    assert.equal(
      (await post(`${behind.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '203.0.113.7' }))).status,
      200,
      'from the proxy: the client it names',
    );
    // A chain through a second trusted hop: the last untrusted entry is the client.
    assert.equal((await post(`${behind.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '192.0.2.9, 203.0.113.7, 127.0.0.1' }))).status, 200);
    assert.equal(
      (await post(`${behind.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '203.0.113.7, 192.0.2.9' }))).status,
      403,
      'what the proxy appended counts, not what the client sent first',
    );

    const bare = await runCli(['relay', '--port', '0', '--data', tempDir(), '--public', '--trust-proxy', '--secret', SECRET]);
    assert.equal(bare.code, 2, 'a bare --trust-proxy (trust anyone) is refused');
    const bad = await runCli(['relay', '--port', '0', '--data', tempDir(), '--trust-proxy', 'proxy.example']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--trust-proxy takes the proxy's address or CIDR/);
  });

  it('without --public a local relay keeps its implicit channels and accepts unverified deliveries', async () => {
    const data = tempDir();
    const relay = await spawnRelayWith(['--data', data]);
    procs.push(relay);
    assert.equal((await post(`${relay.url}/hooks/anything`, '{}')).status, 200);
  });
});
