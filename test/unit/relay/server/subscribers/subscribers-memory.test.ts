// Issue 20 item 3: 64 never-reading WebSocket subscribers of one token, each started at a
// different `since` over 25 MB deliveries, took a relay from 268 MB to 4.2 GB RSS (each held its
// own copy of a 33 MB delivery message on its connection) and most of it stayed after they were
// dropped. This reproduces that attack on a real relay process, scaled down in the number of
// deliveries only: 8 deliveries of 25 MB (the default --max-body), 64 subscribers of the admin
// token (the per-token cap), at 7 different `since`, each reading until its delivery has begun to
// arrive and never again. Unfixed, the relay's peak RSS passed 2 GB here; the bound is 400 MB.
// Then the subscribers go, and what the relay holds afterwards must be back under the bound too.
// A reading subscriber's side (slow but complete, byte-exact) is in subscribers-limits.test.ts.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import WebSocket from 'ws';
import { relayProcesses, spawnRelay, tempDir, tryConnect } from '../../support/helpers';

const MB = 1024 * 1024;
const BODY_BYTES = 25 * MB - 1024;
const DELIVERIES = 8;
const SUBSCRIBERS = 64;
const RSS_BOUND = 400 * MB;

/** VmRSS or VmHWM (peak) of a process, in bytes, from /proc. */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, `${field} of ${pid}`);
  return Number(m[1]) * 1024;
}

/**
 * A WebSocket subscriber that completes the handshake, reads until `bytes` of frames have arrived
 * (its delivery is flowing: the relay has taken it on) and then never reads again. A raw socket,
 * since the ws client resumes a socket it paused itself.
 */
async function stuckSubscriber(port: number, token: string, since: number, bytes: number): Promise<Socket> {
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => undefined);
  await once(sock, 'connect');
  sock.write(
    `GET /ws?since=${since} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  let head = '';
  let frames = 0;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (!head.includes('\r\n\r\n')) {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
        frames += head.length - end - 4;
      } else frames += chunk.length;
      if (frames >= bytes) {
        sock.pause();
        sock.off('data', onData);
        resolve();
      }
    };
    sock.on('data', onData);
    sock.once('close', () => reject(new Error('closed before its delivery arrived')));
  });
  return sock;
}

describe('relay subscribers: memory under never-reading subscribers (real relay process)', function () {
  this.timeout(180_000);
  const procs = relayProcesses();
  const socks: Socket[] = [];
  const clients: WebSocket[] = [];
  const dirs: string[] = [];

  after(async () => {
    for (const s of socks) s.destroy();
    for (const c of clients) c.terminate();
    for (const p of procs) await p.stop('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true }); // 200 MB of journal
  });

  it(`${SUBSCRIBERS} never-reading subscribers at different since over 25 MB deliveries keep the relay under 400 MB RSS, and it stays there after they are dropped`, async function () {
    if (process.platform !== 'linux') this.skip(); // RSS from /proc
    const dir = tempDir();
    dirs.push(dir);
    const data = join(dir, 'relay-data');
    const relay = await spawnRelay(['--data', data]);
    procs.push(relay);
    const token = readFileSync(join(data, 'token'), 'utf8').trim();
    const pid = relay.child.pid!;
    const body = Buffer.alloc(BODY_BYTES, 'service-hooks ');
    for (let i = 0; i < DELIVERIES; i++) {
      const res = await request(`${relay.url}/hooks/default`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
      await res.body.text();
      assert.equal(res.statusCode, 200);
    }
    const afterIngest = memory(pid, 'VmRSS');

    // Every subscriber has at least two deliveries to go, so none finishes and each stays stuck.
    for (let i = 0; i < SUBSCRIBERS; i++) socks.push(await stuckSubscriber(relay.port, token, i % (DELIVERIES - 1), 256 * 1024));
    const peak = memory(pid, 'VmHWM');
    const stuck = memory(pid, 'VmRSS');

    for (const s of socks.splice(0)) s.destroy();
    // The relay has let all of them go once the token's 64 slots can be taken again.
    for (let i = 0; i < SUBSCRIBERS; i++) {
      let opened = false;
      for (let t = 0; t < 200 && !opened; t++) {
        const ws = new WebSocket(`${relay.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${token}` } });
        ws.on('error', () => undefined);
        const r = await Promise.race([once(ws, 'open').then(() => 'open'), once(ws, 'unexpected-response').then(() => 'refused')]);
        if (r === 'open') {
          clients.push(ws);
          opened = true;
        } else ws.terminate();
      }
      assert.ok(opened, `slot ${i} given back`);
    }
    assert.equal(await tryConnect(`${relay.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${token}` } }), 429);
    const dropped = memory(pid, 'VmRSS');
    console.log(
      `      relay RSS: ${Math.round(afterIngest / MB)} MB after ingest, ${Math.round(stuck / MB)} MB with ${SUBSCRIBERS} stuck subscribers (peak ${Math.round(peak / MB)} MB), ${Math.round(dropped / MB)} MB after they went`,
    );
    assert.ok(peak < RSS_BOUND, `peak RSS ${Math.round(peak / MB)} MB, bound ${RSS_BOUND / MB} MB`);
    assert.ok(dropped < RSS_BOUND, `RSS after the drop ${Math.round(dropped / MB)} MB`);
    assert.equal(await relay.stop('SIGTERM'), 0);
  });
});
