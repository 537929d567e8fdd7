// Rejected deliveries cannot fill the disk (issue 10.4): the journal keeps their headers, size,
// sha256 and at most the first 64 KiB of the body, and past a rate per source address they get
// 429 and are not journaled, while signed deliveries from the same address still get 200.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { request } from 'undici';
import { RejectLimiter } from '../../../../../relay/server/ingress/rateLimit';
import { REJECTED_BODY_KEEP, startRelay, type RelayServer } from '../../../../../relay/server';
import type { RelayDelivery } from '../../../../../src/core/relay/protocol';
import { post, signed, tempDir } from '../../support/helpers';

const SECRET = 'a-long-enough-secret-1234';

function journalBytes(dir: string): number {
  return readdirSync(dir)
    .filter((f) => f.startsWith('journal-'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

describe('relay: rejected deliveries', function () {
  this.timeout(60_000);
  let relay: RelayServer;
  let clock = 0;
  const dataDir = () => relay.dataDir;
  beforeEach(async () => {
    clock = 1_000_000;
    relay = await startRelay({
      port: 0,
      dataDir: tempDir(),
      secrets: [SECRET],
      rejectLimits: { perSource: { burst: 3, perMinute: 1 }, total: { burst: 100, perMinute: 60 } },
      now: () => clock,
    });
  });
  afterEach(async () => {
    await relay.close();
  });
  const auth = () => ({ authorization: `Bearer ${relay.token}` });

  it('journals a 1 MiB rejected body as its first 64 KiB, with its size and sha256', async () => {
    const body = Buffer.alloc(1024 * 1024, 'a');
    body.write('{"big":', 0);
    const r = await post(`${relay.url}/hooks/default`, body, { 'x-service-signature': 'sha256=' + '0'.repeat(64), 'x-service-event': 'push' });
    assert.equal(r.status, 401);
    assert.ok(journalBytes(dataDir()) < 2 * REJECTED_BODY_KEEP, `journal holds ${journalBytes(dataDir())} bytes`);
    const d = (await (await fetch(`${relay.url}/api/deliveries/1`, { headers: auth() })).json()) as RelayDelivery;
    assert.equal(d.verification, 'rejected');
    assert.equal(d.size, body.length);
    assert.deepEqual(d.truncated, { kept: REJECTED_BODY_KEEP, sha256: createHash('sha256').update(body).digest('hex') });
    assert.ok(Buffer.from(d.bodyBase64, 'base64').equals(body.subarray(0, REJECTED_BODY_KEEP)));
    assert.equal(d.headers['x-service-event'], 'push');
    assert.equal(d.event, 'push');
  });

  it('keeps the received size and sha256 across a restart (segment index files and the scan alike)', async () => {
    const dir = relay.dataDir;
    await relay.close();
    relay = await startRelay({ port: 0, dataDir: dir, secrets: [SECRET], segmentBytes: 32 * 1024 });
    const bodies = [Buffer.alloc(100_000, 'x'), Buffer.alloc(200_000, 'y')];
    for (const b of bodies) assert.equal((await post(`${relay.url}/hooks/default`, b, { 'x-service-signature': 'sha256=' + '0'.repeat(64) })).status, 401);
    await relay.close();
    relay = await startRelay({ port: 0, dataDir: dir, secrets: [SECRET], segmentBytes: 32 * 1024 });
    const list = (await (await fetch(`${relay.url}/api/deliveries`, { headers: auth() })).json()) as { deliveries: RelayDelivery[] };
    assert.deepEqual(
      list.deliveries.map((d) => [d.size, d.truncated?.kept, d.truncated?.sha256]),
      [...bodies].reverse().map((b) => [b.length, REJECTED_BODY_KEEP, createHash('sha256').update(b).digest('hex')]),
    );
  });

  it('keeps a small rejected body whole (no truncated field)', async () => {
    assert.equal((await post(`${relay.url}/hooks/default`, '{"small":1}', { 'x-service-signature': 'sha256=' + '0'.repeat(64) })).status, 401);
    const d = (await (await fetch(`${relay.url}/api/deliveries/1`, { headers: auth() })).json()) as RelayDelivery;
    assert.equal(d.size, 11);
    assert.equal(d.truncated, undefined);
    assert.equal(Buffer.from(d.bodyBase64, 'base64').toString(), '{"small":1}');
  });

  it('answers 429 past the per-source rate without journaling, still accepts signed deliveries, and refills with time', async () => {
    const bad = { 'x-service-signature': 'sha256=' + '0'.repeat(64) };
    for (let i = 0; i < 3; i++) assert.equal((await post(`${relay.url}/hooks/default`, `{"n":${i}}`, bad)).status, 401);
    const limited = await request(`${relay.url}/hooks/default`, { method: 'POST', headers: bad, body: '{"n":3}' });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '60');
    assert.match(((await limited.body.json()) as { error: string }).error, /too many deliveries that failed verification/);
    assert.equal(relay.store.lastSeq, 3, 'the 429 was not journaled');
    const good = await post(`${relay.url}/hooks/default`, '{"ok":1}', signed(SECRET, '{"ok":1}'));
    assert.equal(good.status, 200);
    clock += 60_000; // one token back
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":4}', bad)).status, 401);
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":5}', bad)).status, 429);
  });

  it('counts each source address on its own (127.0.0.2 is not limited by 127.0.0.1)', async () => {
    const bad = { 'x-service-signature': 'sha256=' + '0'.repeat(64) };
    for (let i = 0; i < 4; i++) await post(`${relay.url}/hooks/default`, '{}', bad);
    assert.equal((await post(`${relay.url}/hooks/default`, '{}', bad)).status, 429);
    // node:http binds the client end to 127.0.0.2 (any 127/8 address is this machine on Linux).
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${relay.url}/hooks/default`, { method: 'POST', headers: bad, localAddress: '127.0.0.2' }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 401);
  });
});

describe('RejectLimiter', () => {
  it('keys IPv6 sources by /64 and IPv4-mapped addresses as IPv4', () => {
    const l = new RejectLimiter({ perSource: { burst: 1, perMinute: 1 }, total: { burst: 100, perMinute: 1 } }, () => 0);
    assert.equal(l.take('2001:db8:1:2::1'), true);
    assert.equal(l.take('2001:db8:1:2:ffff::9'), false, 'same /64');
    assert.equal(l.take('2001:db8:1:3::1'), true, 'another /64');
    assert.equal(l.take('::ffff:192.0.2.7'), true);
    assert.equal(l.take('192.0.2.7'), false, 'the mapped address is the same source');
  });
});
