// The relay's REST API on its route table, the shared HTTP answers, and the `relay` command's
// --time-scale and typed configuration errors (real sockets and a real child process).
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startRelay, type RelayServer } from '../../../relay/server';
import { cli, post, spawnRelay, startTarget, tempDir } from './helpers';

describe('relay API over HTTP', function () {
  this.timeout(60_000);
  let relay: RelayServer;
  beforeEach(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir() });
  });
  afterEach(async () => {
    await relay.close();
  });
  const auth = () => ({ authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' });

  it('answers 413 with an error body to an API body over 64 KiB (the connection is not just dropped)', async () => {
    for (const chunked of [false, true]) {
      const big = '{"keep":1,"pad":"' + 'x'.repeat(70 * 1024) + '"}';
      const body = chunked ? Readable.from([Buffer.from(big)]) : big;
      const r = await request(`${relay.url}/api/prune`, { method: 'POST', headers: auth(), body });
      assert.equal(r.statusCode, 413, chunked ? 'streamed' : 'declared');
      assert.match(((await r.body.json()) as { error: string }).error, /65536-byte limit/);
    }
  });

  it('answers 405 with Allow to a known API path with the wrong method, 404 to an unknown one', async () => {
    const r = await request(`${relay.url}/api/prune`, { headers: auth() });
    assert.equal(r.statusCode, 405);
    assert.equal(r.headers.allow, 'POST');
    await r.body.dump();
    const n = await request(`${relay.url}/api/nothing`, { headers: auth() });
    assert.equal(n.statusCode, 404);
    await n.body.dump();
  });

  it('refuses a wrong token before reading a body, and keeps serving', async () => {
    const r = await request(`${relay.url}/api/prune`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
    assert.equal(r.statusCode, 401);
    await r.body.dump();
    assert.equal((await post(`${relay.url}/hooks/default`, '{}')).status, 200);
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
