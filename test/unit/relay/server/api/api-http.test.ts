// The relay's REST API on its route table, the shared HTTP answers, and the `relay` command's
// --time-scale and typed configuration errors (real sockets and a real child process).
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { EXIT_PORT_IN_USE } from '../../../../../src/core/relay/ready';
import { startRelay } from '../../../../../relay/server';
import { crc32 } from '../../../../../relay/server/base/crc32';
import { HEADER_BYTES } from '../../../../../relay/server/journal/journal';
import { T_DELIVERY } from '../../../../../relay/server/store/storeRecords';
import { cli, post, relayPerTest, spawnRelay, startTarget, tempDir } from '../../support/helpers';

describe('relay API over HTTP', function () {
  this.timeout(60_000);
  const relay = relayPerTest();
  const auth = () => ({ authorization: `Bearer ${relay().token}`, 'content-type': 'application/json' });

  it('answers 413 with an error body to an API body over 64 KiB (the connection is not just dropped)', async () => {
    for (const chunked of [false, true]) {
      const big = '{"keep":1,"pad":"' + 'x'.repeat(70 * 1024) + '"}';
      const body = chunked ? Readable.from([Buffer.from(big)]) : big;
      const r = await request(`${relay().url}/api/prune`, { method: 'POST', headers: auth(), body });
      assert.equal(r.statusCode, 413, chunked ? 'streamed' : 'declared');
      assert.match(((await r.body.json()) as { error: string }).error, /65536-byte limit/);
    }
  });

  it('answers 405 with Allow to a known API path with the wrong method, 404 to an unknown one', async () => {
    const r = await request(`${relay().url}/api/prune`, { headers: auth() });
    assert.equal(r.statusCode, 405);
    assert.equal(r.headers.allow, 'POST');
    await r.body.dump();
    const n = await request(`${relay().url}/api/nothing`, { headers: auth() });
    assert.equal(n.statusCode, 404);
    await n.body.dump();
  });

  const list = async (query: string) => {
    const r = await request(`${relay().url}/api/deliveries?${query}`, { headers: auth() });
    return { status: r.statusCode, body: (await r.body.json()) as { deliveries?: { seq: number }[]; error?: string } };
  };

  it('answers 400 to an unknown ?status= and to a malformed number, an empty list to limit=0', async () => {
    assert.equal((await post(`${relay().url}/hooks/default`, '{}')).status, 200);
    const bad = await list('status=verifed');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error!, /status must be one of verified, unverified, rejected, pending, ok, failed/);
    for (const q of ['limit=-1', 'since=1.5', 'before=x', 'limit=1e3']) assert.equal((await list(q)).status, 400, q);
    assert.deepEqual((await list('limit=0')).body.deliveries, []);
    assert.deepEqual(
      (await list('status=unverified')).body.deliveries!.map((d) => d.seq),
      [1],
    );
  });

  it('pages back with before=<seq> past the newest page', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await post(`${relay().url}/hooks/default`, `{"n":${i}}`)).status, 200);
    const seqs = async (q: string) => (await list(q)).body.deliveries!.map((d) => d.seq);
    assert.deepEqual(await seqs('limit=2'), [5, 4]);
    assert.deepEqual(await seqs('limit=2&before=4'), [3, 2]);
    assert.deepEqual(await seqs('limit=2&before=2'), [1]);
    assert.deepEqual(await seqs('limit=2&before=1'), []);
    assert.deepEqual(await seqs('before=5&since=2'), [4, 3]);
  });

  it('answers 400 to replay and prune bodies that are a JSON string, boolean or number', async () => {
    assert.equal((await post(`${relay().url}/hooks/default`, '{}')).status, 200);
    for (const path of ['/api/deliveries/1/replay', '/api/prune']) {
      for (const body of ['"x"', 'true', 'false', '12', '[]', 'null']) {
        const r = await request(relay().url + path, { method: 'POST', headers: auth(), body });
        assert.equal(r.statusCode, 400, `${path} ${body}`);
        assert.match(((await r.body.json()) as { error: string }).error, /JSON object/);
      }
    }
  });

  it('answers 500 (not 400) when a stored record fails to parse', async () => {
    assert.equal((await post(`${relay().url}/hooks/default`, '{"n":1}')).status, 200);
    // Break the record's metadata (its first byte: neither binary nor JSON) and fix its checksum, so only parsing can fail.
    const file = join(
      relay().dataDir,
      readdirSync(relay().dataDir).find((f) => f.startsWith('journal-'))!,
    );
    const buf = readFileSync(file);
    let headerAt = 0; // the delivery's record (after any the relay wrote at start)
    while (buf[headerAt + 8] !== T_DELIVERY) headerAt += HEADER_BYTES + buf.readUInt32LE(headerAt);
    const payloadAt = headerAt + HEADER_BYTES;
    const meta = payloadAt + 4;
    const length = buf.readUInt32LE(headerAt);
    buf[meta] = '!'.charCodeAt(0);
    buf.writeUInt32LE(crc32(buf.subarray(payloadAt, payloadAt + length), crc32(buf.subarray(headerAt + 8, headerAt + 9))), headerAt + 4);
    writeFileSync(file, buf);
    const r = await request(`${relay().url}/api/deliveries/1`, { headers: auth() });
    assert.equal(r.statusCode, 500);
    assert.ok(((await r.body.json()) as { error: string }).error);
    assert.equal((await list('')).status, 200, 'the relay keeps serving');
  });

  it('refuses a wrong token before reading a body, and keeps serving', async () => {
    const r = await request(`${relay().url}/api/prune`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
    assert.equal(r.statusCode, 401);
    await r.body.dump();
    assert.equal((await post(`${relay().url}/hooks/default`, '{}')).status, 200);
  });
});

describe('relay command', function () {
  this.timeout(60_000);

  it('--time-scale speeds the retry schedule up (1 h at 1e7 is 0.36 ms), as in emulate', async () => {
    const target = await startTarget();
    target.statusFor = (_r, all) => (all.length === 1 ? 503 : 200);
    const relay = await spawnRelay(['--data', tempDir(), '--forward', target.url, '--retry-schedule', '0,1h', '--time-scale', '1e7']);
    try {
      assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
      await target.waitFor(2); // a multiplier would put the second attempt 10^7 hours away
      assert.equal(target.received[1]!.status, 200);
    } finally {
      await relay.stop();
      await target.close();
    }
  });

  it('exits 4 (EXIT_PORT_IN_USE) with a clear message when the port is taken (by the listen error code)', async () => {
    const other = await startRelay({ port: 0, dataDir: tempDir() });
    try {
      const child = spawn(process.execPath, [await cli(), 'relay', '--port', String(other.port), '--data', tempDir()], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      assert.equal(code, EXIT_PORT_IN_USE, err);
      assert.match(err, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${other.port} \\(EADDRINUSE\\): the port is in use`));
    } finally {
      await other.close();
    }
  });

  for (const [args, pattern] of [
    [['--time-scale', '0'], /--time-scale must be a positive number/],
    [['--allow-cidr', 'nonsense'], /not a CIDR or preset/],
    [['--forward', 'ftp://x/y'], /--forward must be an http\(s\) URL/],
  ] as const) {
    it(`exits 2 with a usage message for ${args.join(' ')}`, async () => {
      const child = spawn(process.execPath, [await cli(), 'relay', '--port', '0', '--data', tempDir(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      assert.equal(code, 2, err);
      assert.match(err, pattern);
    });
  }
});
