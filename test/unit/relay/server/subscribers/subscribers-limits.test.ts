// WebSocket subscribers' resource limits (issue 10 item 7), with real ws clients that never read:
// a bound on the bytes waiting for one subscriber (dropped with WS_CLOSE_SLOW_SUBSCRIBER, resumes
// by seq with nothing lost), a cap per token, and subscribers indexed by channel.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { randomBytes } from 'node:crypto';
import { STREAM_BODY_BYTES } from '../../../../../relay/server/subscribers/subscribers';
import { PART_BYTES } from '../../../../../relay/server/subscribers/deliveryStream';
import { subscribe } from '../../../../../relay/client';
import { WS_CLOSE_SLOW_SUBSCRIBER, WS_TOO_MANY_SUBSCRIBERS_STATUS, type DeliveryMessage, type ServerMessage } from '../../../../../src/core/relay/protocol';
import { tryConnect } from '../../support/helpers';
import { add, addDamagedLarge, harness, slowReader, TOKEN, type Harness } from '../../support/subscriberHarness';

/** A real ws client that stops reading from its socket once connected. */
async function neverReader(url: string, query = ''): Promise<{ ws: WebSocket; socket: Socket }> {
  const ws = new WebSocket(url + query, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false, maxPayload: 1 << 30 });
  ws.on('error', () => undefined);
  await once(ws, 'open');
  const socket = (ws as unknown as { _socket: Socket })._socket;
  socket.pause();
  return { ws, socket };
}

describe('relay subscribers: resource limits', function () {
  this.timeout(60_000);
  let h: Harness | undefined;
  const clients: WebSocket[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) c.terminate();
    await h?.close();
    h = undefined;
  });

  it('a subscriber that never reads is dropped with the documented close code once too much waits for it, and resumes by seq with nothing lost', async () => {
    h = await harness({ maxUnsentBytes: 256 * 1024 });
    const { ws, socket } = await neverReader(h.url, '?since=0');
    clients.push(ws);
    const body = Buffer.alloc(64 * 1024, 0x62);
    let n = 0;
    while (h.hub.stats.dropped === 0) {
      assert.ok(n < 5000, 'never dropped');
      await add(h.store, 'default', body);
      n++;
    }
    assert.equal(h.hub.count, 0);
    const closed = once(ws, 'close') as Promise<[number, Buffer]>;
    socket.resume(); // now it reads what was queued, then the close frame
    const [code, reason] = await closed;
    assert.equal(code, WS_CLOSE_SLOW_SUBSCRIBER);
    assert.match(reason.toString(), /too slow: over 262144 bytes waiting; resume with since=0/);
    // Resuming by seq loses nothing.
    const got: number[] = [];
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const sub = subscribe({
      url: h.url,
      token: TOKEN,
      since: 0,
      onDelivery: (d) => {
        assert.ok(Buffer.from(d.bodyBase64!, 'base64').equals(body));
        got.push(d.seq);
        if (got.length === n) done();
      },
    });
    await all;
    sub.close();
    await sub.closed;
    assert.deepEqual(
      got,
      Array.from({ length: n }, (_, i) => i + 1),
    );
  });

  it('20 subscribers that never read hold at most the bound each, and a reading subscriber gets every delivery', async () => {
    const maxUnsentBytes = 1024 * 1024;
    h = await harness({ maxUnsentBytes });
    for (let i = 0; i < 20; i++) clients.push((await neverReader(h.url)).ws);
    const seen: DeliveryMessage['delivery'][] = [];
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const N = 40;
    let opened!: () => void;
    const helloed = new Promise<void>((r) => (opened = r));
    const sub = subscribe({ url: h.url, token: TOKEN, onDelivery: (d) => void (seen.push(d) === N && done()), onState: (s) => s.state === 'open' && opened() });
    await helloed;
    assert.equal(h.hub.count, 21);
    const body = Buffer.alloc(256 * 1024, 0x63);
    let maxQueued = 0;
    for (let i = 0; i < N; i++) {
      await add(h.store, 'default', body);
      maxQueued = Math.max(maxQueued, h.hub.stats.maxQueuedBytes);
    }
    await all;
    sub.close();
    await sub.closed;
    assert.deepEqual(
      seen.map((d) => d.seq),
      Array.from({ length: N }, (_, i) => i + 1),
    );
    const message = Math.ceil((body.length * 4) / 3) + 1024;
    assert.ok(maxQueued <= maxUnsentBytes + message, `at most the bound plus one message waited for a subscriber (saw ${maxQueued})`);
  });

  for (const wholeBodies of [false, true]) {
    it(`a slow but reading subscriber gets every delivery byte-exact and in order, large bodies as fragments with forward notices between messages${wholeBodies ? ' (a store that reads bodies whole)' : ''}`, async () => {
      h = await harness({ maxUnsentBytes: 64 * 1024 * 1024, maxQueuedBytes: 1024 * 1024 }, { wholeBodies });
      // Sizes around the streaming threshold and well past it, small ones between, random bytes.
      const sizes = [10, STREAM_BODY_BYTES, STREAM_BODY_BYTES + 1, 3 * 1024 * 1024 + 2, 1, 700 * 1024, 5 * 1024 * 1024 + 1, 64];
      const bodies = sizes.map((n) => randomBytes(n));
      for (const b of bodies) await add(h.store, 'default', b);
      const ws = slowReader(`${h.url}?since=0`);
      clients.push(ws);
      const deliveries: DeliveryMessage['delivery'][] = [];
      const forwards: number[] = [];
      let noted = false;
      const closed = once(ws, 'close') as Promise<[number, Buffer]>;
      await new Promise<void>((resolve, reject) => {
        closed.then(([code]) => reject(new Error(`closed with ${code}`)), reject);
        ws.on('message', (data) => {
          const msg = JSON.parse(data.toString()) as ServerMessage;
          if (msg.type === 'forward') {
            assert.ok(msg.seq <= deliveries.length, `forward notice for ${msg.seq} after its delivery`);
            forwards.push(msg.seq);
          }
          if (msg.type !== 'delivery') return;
          deliveries.push(msg.delivery);
          if (!noted) {
            // While the large ones are on their way: forward notices for everything, to be sent between messages.
            noted = true;
            for (let seq = 1; seq <= bodies.length; seq++)
              void h!.store.recordAttempt(seq, { target: 'http://app.invalid/', at: new Date().toISOString(), status: 204, ok: true, durationMs: 1 });
          }
          if (deliveries.length === bodies.length) resolve();
        });
      });
      assert.deepEqual(
        deliveries.map((d) => d.seq),
        bodies.map((_, i) => i + 1),
      );
      deliveries.forEach((d, i) => {
        assert.ok(Buffer.from(d.bodyBase64!, 'base64').equals(bodies[i]!), `body of ${d.seq}`);
        assert.equal(d.headers?.['content-type'], 'application/octet-stream');
        assert.equal(d.size, sizes[i]);
      });
      assert.ok(forwards.length > 0, 'forward notices arrived');
    });
  }

  it('a large delivery whose record is damaged is never completed with wrong bytes: the stream is cut, and after the reconnect it comes without its body', async () => {
    h = await harness();
    await addDamagedLarge(h, STREAM_BODY_BYTES * 2, STREAM_BODY_BYTES);

    const messagesUntilClose = async () => {
      const ws = new WebSocket(`${h!.url}?since=0`, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false, maxPayload: 1 << 30 });
      clients.push(ws);
      const got: ServerMessage[] = [];
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as ServerMessage;
        got.push(msg);
        if (msg.type === 'caught-up') ws.close();
      });
      ws.on('error', () => undefined);
      const [code] = (await once(ws, 'close')) as [number];
      return { code, deliveries: got.flatMap((m) => (m.type === 'delivery' ? [m.delivery] : [])) };
    };
    const first = await messagesUntilClose();
    assert.equal(first.code, 1006, 'cut off, not closed cleanly');
    assert.deepEqual(first.deliveries, [], 'the damaged delivery never arrived whole');
    const second = await messagesUntilClose();
    assert.deepEqual(
      second.deliveries.map((d) => [d.seq, d.bodyBase64 === undefined ? 'no body' : Buffer.from(d.bodyBase64, 'base64').toString()]),
      [
        [1, 'no body'],
        [2, '{"after":1}'],
      ],
    );
    assert.equal(h.store.integrity().corruptRecords, 1);
  });

  for (const bound of ['relay-wide', 'per token'] as const) {
    it(`what is queued for never-reading subscribers stays under the ${bound} bound (plus one fragment each)`, async () => {
      const max = 256 * 1024;
      h = await harness(bound === 'relay-wide' ? { maxQueuedBytes: max } : { maxQueuedBytesPerToken: max });
      // More than loopback's socket buffers take, so each subscriber ends up waiting for its connection.
      for (let i = 0; i < 8; i++) await add(h.store, 'default', randomBytes(4 * 1024 * 1024));
      const N = 8;
      for (let i = 0; i < N; i++) clients.push((await neverReader(h.url, '?since=0')).ws);
      for (let turns = 0; h.hub.stats.stalled < N; turns++) {
        assert.ok(turns < 1_000_000, `only ${h.hub.stats.stalled} of ${N} stalled`);
        await new Promise((r) => setImmediate(r)); // the hub's writes and reads go on meanwhile
      }
      const { queuedBytes } = h.hub.stats;
      const fragment = Math.ceil((PART_BYTES * 4) / 3);
      assert.ok(queuedBytes <= max + N * fragment, `${queuedBytes} bytes queued, bound ${max} + ${N} fragments`);
    });
  }

  it('caps subscribers per token with HTTP 429; a slot frees when one leaves', async () => {
    h = await harness({ maxSubscribersPerToken: 3 });
    const open: WebSocket[] = [];
    for (let i = 0; i < 3; i++) {
      const ws = new WebSocket(h.url, { headers: { authorization: `Bearer ${TOKEN}` } });
      clients.push(ws);
      await once(ws, 'open');
      open.push(ws);
    }
    assert.equal(await tryConnect(h.url, { headers: { authorization: `Bearer ${TOKEN}` } }), WS_TOO_MANY_SUBSCRIBERS_STATUS);
    open[0]!.terminate();
    // The relay notices the leave on its own side; try until it does (each try is a real upgrade).
    let r: 'open' | number = WS_TOO_MANY_SUBSCRIBERS_STATUS;
    for (let i = 0; i < 200 && r !== 'open'; i++) r = await tryConnect(h.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r, 'open');
  });

  it('a failed handshake gives its slot back', async () => {
    h = await harness({ maxSubscribersPerToken: 1 });
    const { port } = new URL(h.url);
    for (let i = 0; i < 3; i++) {
      // A valid token but no Sec-WebSocket-Key: ws answers 400 itself and never accepts.
      const sock = connect(Number(port), '127.0.0.1');
      sock.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
      );
      let answer = '';
      sock.on('data', (c: Buffer) => (answer += c.toString()));
      await once(sock, 'close');
      assert.match(answer, /^HTTP\/1\.1 400/);
    }
    const ws = new WebSocket(h.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    clients.push(ws);
    await once(ws, 'open');
  });

  it('500 subscribers of an unused channel are not woken by deliveries to another channel', async () => {
    h = await harness({ maxSubscribersPerToken: 1000 });
    const conns = await Promise.all(
      Array.from({ length: 500 }, async () => {
        const ws = new WebSocket(`${h!.url}?channel=unused`, { headers: { authorization: `Bearer ${TOKEN}` } });
        clients.push(ws);
        await once(ws, 'open');
        return ws;
      }),
    );
    assert.equal(conns.length, 500);
    const seen: number[] = [];
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const sub = subscribe({ url: h.url, token: TOKEN, channel: 'used', since: 0, onDelivery: (d) => void (seen.push(d.seq) === 20 && done()) });
    for (let i = 0; i < 20; i++) await add(h.store, 'used', Buffer.from(`{"i":${i}}`));
    await all;
    sub.close();
    await sub.closed;
    assert.deepEqual(
      seen,
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.ok(h.hub.stats.wakeups <= 20, `only the used channel's subscriber was woken (${h.hub.stats.wakeups} wake-ups)`);
  });
});
