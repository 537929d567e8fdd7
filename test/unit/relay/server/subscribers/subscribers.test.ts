// WebSocket subscribers (relay/server/subscribers/subscribers.ts): the token in a header or as a
// subprotocol, browser Origins and foreign Hosts refused, replay from `since` then live in order,
// a resume without gap or duplicate, and `service-hooks forward` as a real process.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { createServer, connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { subscribe, type SubscriptionState } from '../../../../../relay/client';
import type { DeliveryMessage } from '../../../../../src/core/relay/protocol';
import { cli, post, startTarget, tempDir, tryConnect } from '../../support/helpers';

type Delivery = DeliveryMessage['delivery'];

describe('relay subscribers (WebSocket)', function () {
  this.timeout(60_000);
  let relay: RelayServer;

  beforeEach(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
  });
  afterEach(async () => {
    await relay.close();
  });

  it('accepts the token in the Authorization header or as subprotocol, and refuses a bad token', async () => {
    const ws = `ws://127.0.0.1:${relay.port}/ws`;
    assert.equal(await tryConnect(ws, { headers: { authorization: `Bearer ${relay.token}` } }), 'open');
    assert.equal(await tryConnect(ws, { protocols: [`service-hooks.token.${relay.token}`] }), 'open');
    assert.equal(await tryConnect(ws), 401);
    assert.equal(await tryConnect(ws, { headers: { authorization: 'Bearer wrong' } }), 401);
    assert.equal(await tryConnect(ws, { protocols: ['service-hooks.token.wrong'] }), 401);
    assert.equal(await tryConnect(`${ws}?token=${relay.token}`), 401, 'never from the query string');
  });

  it('refuses browser Origins and foreign Hosts (DNS rebinding), allows VS Code webviews', async () => {
    const ws = `ws://127.0.0.1:${relay.port}/ws`;
    const auth = { authorization: `Bearer ${relay.token}` };
    assert.equal(await tryConnect(ws, { headers: { ...auth, origin: 'https://evil.example' } }), 403);
    assert.equal(await tryConnect(ws, { headers: { ...auth, origin: 'http://localhost:3000' } }), 403);
    assert.equal(await tryConnect(ws, { headers: { ...auth, host: `evil.example:${relay.port}` } }), 403);
    assert.equal(await tryConnect(ws, { headers: { ...auth, origin: 'vscode-webview://abc123' } }), 'open');
    assert.equal(await tryConnect(ws, { headers: { ...auth, host: `localhost:${relay.port}` } }), 'open');
  });

  it('replays from since, then streams live, each delivery once and in order', async () => {
    for (let i = 1; i <= 3; i++) await post(`${relay.url}/hooks/default`, `{"n":${i}}`);
    const got: Delivery[] = [];
    const states: SubscriptionState['state'][] = [];
    let wake = () => {};
    const sub = subscribe({
      url: `ws://127.0.0.1:${relay.port}`,
      token: relay.token,
      since: 1,
      onDelivery: (d) => {
        got.push(d);
        wake();
      },
      onState: (s) => states.push(s.state),
    });
    const waitFor = (n: number) => new Promise<void>((r) => ((wake = () => got.length >= n && r()), wake()));
    await waitFor(2);
    await post(`${relay.url}/hooks/default`, '{"n":4}');
    await waitFor(3);
    sub.close();
    await sub.closed;
    assert.deepEqual(
      got.map((d) => d.seq),
      [2, 3, 4],
    );
    assert.equal(Buffer.from(got[2]!.bodyBase64!, 'base64').toString(), '{"n":4}');
    assert.ok(states.includes('open') && states.includes('caught-up'));
    assert.equal(sub.lastSeq, 4);
  });

  it('a subscriber dropped mid-stream resumes with no gap and no duplicate', async () => {
    // A TCP proxy between the subscriber and the relay lets the test cut the connection for real.
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(relay.port, '127.0.0.1');
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const proxyPort = (proxy.address() as { port: number }).port;
    const N = 60;
    const got: number[] = [];
    let reconnects = 0;
    let wake = () => {};
    let cut = false;
    const sub = subscribe({
      url: `ws://127.0.0.1:${proxyPort}/ws`,
      token: relay.token,
      since: 0,
      backoff: { initialMs: 10, maxMs: 50 },
      onDelivery: (d) => {
        got.push(d.seq);
        if (got.length === 20 && !cut) {
          cut = true;
          for (const s of sockets) s.destroy();
          sockets.clear();
        }
        wake();
      },
      onState: (s) => {
        if (s.state === 'reconnecting') reconnects++;
      },
    });
    for (let i = 1; i <= N; i++) await post(`${relay.url}/hooks/default`, `{"n":${i}}`);
    await new Promise<void>((r) => ((wake = () => got.length >= N && r()), wake()));
    sub.close();
    await sub.closed;
    proxy.close();
    assert.ok(reconnects >= 1, 'the connection was dropped and re-established');
    assert.deepEqual(
      got,
      Array.from({ length: N }, (_, i) => i + 1),
    );
  });

  it('service-hooks forward (a real process) forwards byte-exact, acks, and stops on SIGTERM', async () => {
    const target = await startTarget();
    const child = spawn(
      process.execPath,
      [await cli(), 'forward', '--relay', `ws://127.0.0.1:${relay.port}`, '--token', relay.token, '--to', target.url, '--since', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const bodies = ['{\n  "pretty": "\\u00e9"\n}\n', '{"compact":1}', Buffer.from([0xff, 0xfe, 0x00, 0x41]).toString('latin1')];
      for (const b of bodies)
        await post(`${relay.url}/hooks/default`, Buffer.from(b, 'latin1'), { 'x-service-event': 'push', 'content-type': 'application/octet-stream' });
      await target.waitFor(3);
      bodies.forEach((b, i) => assert.ok(target.received[i]!.body.equals(Buffer.from(b, 'latin1')), `body ${i}`));
      assert.equal(target.received[0]!.headers['x-service-event'], 'push');
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0);
      assert.match(out, /stopped after seq 3/);
      assert.doesNotMatch(out, new RegExp(relay.token), 'the token is never printed');
    } finally {
      child.kill('SIGKILL');
      await target.close();
    }
  });
});
