// The ingress (relay/server/ingress/ingress.ts): bytes and headers forwarded exactly (up to 25 MB),
// signatures checked with every configured secret (401 with the reason otherwise), per-channel
// secrets and targets, 413/400/405 refusals, the allow-list, slow-client time-outs, and the API's token and Host.
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startRelay, type RelayOptions, type RelayServer } from '../../../../../relay/server';
import { RelayApi } from '../../../../../relay/client';
import { post, settled, signed, startTarget, tempDir, type TargetApp } from '../../support/helpers';

const SECRET = 'current-secret';
const OLD = 'previous-secret';

describe('relay ingress', function () {
  this.timeout(60_000);
  let target: TargetApp;
  let relay: RelayServer;
  let api: RelayApi;

  async function start(extra: RelayOptions = {}): Promise<void> {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET, OLD], forward: [target.url], ...extra });
    api = new RelayApi({ baseUrl: relay.url, token: relay.token });
  }

  beforeEach(async () => {
    target = await startTarget();
  });
  afterEach(async () => {
    await relay?.close();
    await target.close();
  });

  it('forwards pretty-printed JSON with \\u escapes byte for byte, with the original headers minus hop-by-hop', async () => {
    await start();
    const body = '{\n    "action":  "opened",\n\t"name": "caf\\u00e9 \\ud83d\\ude00",\r\n  "n": 1.50\n}\n\n';
    const r = await post(
      `${relay.url}/hooks/default`,
      body,
      signed(SECRET, body, { 'X-Service-Event': 'push', 'X-Service-Delivery': 'd-1', 'X-Custom': 'kept', 'Proxy-Authorization': 'x', TE: 'trailers' }),
    );
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { seq: 1, verification: 'verified' });
    await target.waitFor(1);
    const got = target.received[0]!;
    assert.ok(got.body.equals(Buffer.from(body)), 'body bytes differ');
    assert.equal(got.headers['x-service-signature'], signed(SECRET, body)['x-service-signature']);
    assert.equal(got.headers['x-custom'], 'kept');
    assert.equal(got.headers['x-service-event'], 'push');
    assert.equal(got.headers['proxy-authorization'], undefined);
    assert.equal(got.headers['te'], undefined);
    assert.equal(got.headers['content-length'], String(Buffer.byteLength(body)));
    const d = await api.getDelivery(1);
    assert.equal(Buffer.from(d.bodyBase64, 'base64').toString(), body);
    assert.equal(d.event, 'push');
    assert.equal(d.deliveryId, 'd-1');
  });

  it('forwards a 25 MB body byte for byte', async () => {
    await start();
    const body = Buffer.alloc(25 * 1024 * 1024 - 1024);
    for (let i = 0; i < body.length; i += 4096) body.writeUInt32LE(i, i);
    const r = await post(`${relay.url}/hooks/big`, body, signed(SECRET, body));
    assert.equal(r.status, 200);
    await target.waitFor(1);
    assert.ok(target.received[0]!.body.equals(body));
  });

  it('accepts every configured secret (rotation) and marks which deliveries were verified', async () => {
    await start();
    const body = '{"rotated":true}';
    assert.equal((await post(`${relay.url}/hooks`, body, signed(OLD, body))).status, 200);
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body))).status, 200);
    await target.waitFor(2);
    const list = await api.listDeliveries({ status: 'verified' });
    assert.deepEqual(
      list.deliveries.map((d) => d.channel),
      ['default', 'default'],
    );
  });

  it('rejects a bad or missing signature with 401 and the reason, records it, and does not forward it', async () => {
    await start();
    const body = '{"a":1}';
    const bad = await post(`${relay.url}/hooks/default`, body, signed('wrong', body));
    assert.equal(bad.status, 401);
    assert.match((bad.json as { error: string }).error, /does not match/);
    const missing = await post(`${relay.url}/hooks/default`, body);
    assert.equal(missing.status, 401);
    assert.match((missing.json as { error: string }).error, /missing/);
    const malformed = await post(`${relay.url}/hooks/default`, body, { 'x-service-signature': 'SHA256=abc' });
    assert.equal(malformed.status, 401);
    const ok = await post(`${relay.url}/hooks/default`, body, signed(SECRET, body));
    assert.equal(ok.status, 200);
    await settled(relay.store, (ok.json as { seq: number }).seq);
    const rejected = await api.listDeliveries({ status: 'rejected' });
    assert.equal(rejected.deliveries.length, 3);
    assert.ok(rejected.deliveries.every((d) => d.forward.length === 0 && d.reason));
    const status = await api.status();
    assert.deepEqual(status.channels, [
      { name: 'default', received: 4, verified: 1, unverified: 0, rejected: 3, forwarded: 1, failed: 0, pending: 0, ingressUrl: `${relay.url}/hooks/default` },
    ]);
    assert.equal(target.received.length, 1);
  });

  it('accepts deliveries without a configured secret as unverified', async () => {
    await start({ secrets: [] });
    const r = await post(`${relay.url}/hooks/open`, 'plain text', { 'content-type': 'text/plain' });
    assert.deepEqual(r.json, { seq: 1, verification: 'unverified' });
    await target.waitFor(1);
  });

  it('gives each configured channel its own secrets and targets', async () => {
    const other = await startTarget();
    try {
      await start({ channels: { ci: { secrets: ['ci-secret'], forward: [other.url] } } });
      const body = '{"ch":"ci"}';
      assert.equal((await post(`${relay.url}/hooks/ci`, body, signed(SECRET, body))).status, 401);
      assert.equal((await post(`${relay.url}/hooks/ci`, body, signed('ci-secret', body))).status, 200);
      assert.equal((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).status, 200);
      await other.waitFor(1);
      await target.waitFor(1);
      assert.equal(other.received.length, 1);
    } finally {
      await other.close();
    }
  });

  it('answers 413 for a body over the cap, both declared and streamed, and keeps serving', async () => {
    await start({ maxBody: 1024 });
    const big = Buffer.alloc(2048, 1);
    const declared = await post(`${relay.url}/hooks/default`, big, signed(SECRET, big));
    assert.equal(declared.status, 413);
    // Chunked, no content-length: the relay stops at the cap.
    const res = await request(`${relay.url}/hooks/default`, {
      method: 'POST',
      body: Readable.from(
        (async function* () {
          for (let i = 0; i < 4; i++) yield Buffer.alloc(512, 2);
        })(),
      ),
      headers: signed(SECRET, big),
    }).then(
      async (r) => ({ status: r.statusCode, text: await r.body.text() }),
      (err: Error) => ({ status: 0, text: err.message }),
    );
    assert.ok(res.status === 413 || res.status === 0, `got ${res.status}`);
    const small = '{}';
    assert.equal((await post(`${relay.url}/hooks/default`, small, signed(SECRET, small))).status, 200);
    const list = await api.listDeliveries({});
    assert.equal(list.deliveries.length, 1);
  });

  it('rejects a bad channel name with 400, other methods with 405', async () => {
    await start();
    for (const ch of ['bad%20name', '.hidden', '-x', 'a'.repeat(65), 'a%2Fb']) {
      const r = await post(`${relay.url}/hooks/${ch}`, '{}', signed(SECRET, '{}'));
      assert.equal(r.status, 400, ch);
    }
    const get = await request(`${relay.url}/hooks/default`);
    await get.body.dump();
    assert.equal(get.statusCode, 405);
  });

  it('applies the source allow-list (preset service) through X-Forwarded-For only with --trust-proxy', async () => {
    await start({ allowCidr: ['service'], trustProxy: ['127.0.0.1'] });
    const body = '{}';
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '203.0.113.7' }))).status, 200);
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '10.0.0.1, 198.51.100.200' }))).status, 200);
    const refused = await post(`${relay.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '192.0.2.1' }));
    assert.equal(refused.status, 403);
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body))).status, 403, 'no XFF: loopback is not in the list');
    await relay.close();
    await start({ allowCidr: ['service'] });
    const spoofed = await post(`${relay.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '203.0.113.7' }));
    assert.equal(spoofed.status, 403, 'X-Forwarded-For is ignored without --trust-proxy');
    await relay.close();
    await start({ allowCidr: ['service'], trustProxy: ['10.0.0.0/8'] });
    const notTheProxy = await post(`${relay.url}/hooks`, body, signed(SECRET, body, { 'x-forwarded-for': '203.0.113.7' }));
    assert.equal(notTheProxy.status, 403, 'X-Forwarded-For is ignored from a peer that is not a trusted proxy');
    await relay.close();
    await start({ allowCidr: ['service', '127.0.0.1/32'] });
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body))).status, 200);
  });

  it('rejects an invalid allow-list entry', async () => {
    await assert.rejects(startRelay({ port: 0, dataDir: tempDir(), allowCidr: ['not-a-cidr'] }), /not a CIDR/);
  });

  it('times out a slow client that never finishes its headers, and keeps serving', async () => {
    await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const sock = connect(relay.port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app');
    let data = '';
    sock.on('data', (c: Buffer) => (data += c.toString()));
    await once(sock, 'close');
    assert.match(data, /^HTTP\/1\.1 408/);
    const body = '{}';
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body))).status, 200);
  });

  it('times out a slow client that stops sending its body', async () => {
    await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const sock = connect(relay.port, '127.0.0.1');
    await once(sock, 'connect');
    sock.write('POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"partial"');
    let data = '';
    sock.on('data', (c: Buffer) => (data += c.toString()));
    await once(sock, 'close');
    assert.match(data, /^HTTP\/1\.1 408|^$/);
    assert.equal((await api.listDeliveries({})).deliveries.length, 0);
  });

  it('REST needs the token, and checks Host', async () => {
    await start();
    const noToken = await request(`${relay.url}/api/status`);
    assert.equal(noToken.statusCode, 401);
    assert.doesNotMatch(await noToken.body.text(), new RegExp(relay.token));
    const wrong = await request(`${relay.url}/api/status`, { headers: { authorization: 'Bearer nope' } });
    await wrong.body.dump();
    assert.equal(wrong.statusCode, 401);
    const rebinding = await request(`${relay.url}/api/status`, { headers: { authorization: `Bearer ${relay.token}`, host: 'evil.example:8788' } });
    await rebinding.body.dump();
    assert.equal(rebinding.statusCode, 403);
    const health = await request(`${relay.url}/healthz`);
    assert.equal(health.statusCode, 200);
    await health.body.dump();
  });
});
