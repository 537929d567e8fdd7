// `bodies=binary` (issue 24): a large body goes to a subscriber as raw binary messages after its
// delivery message, so `service-hooks forward` holds the body once instead of its base64 in
// frames beside it. Real journal store, real hub, real ws clients: the wire as a raw client sees
// it, relay/client's subscribe() end to end, a damaged record, and what a client refuses.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import WebSocket from 'ws';
import { subscribe, type SubscriptionState } from '../../../../../relay/client';
import { FollowingBody, MAX_FOLLOWING_BODY } from '../../../../../relay/client/followingBody';
import { deliveryBody } from '../../../../../relay/client/serverMessage';
import { PART_BYTES } from '../../../../../relay/server/subscribers/deliveryStream';
import { STREAM_BODY_BYTES } from '../../../../../relay/server/subscribers/subscribers';
import type { DeliveryMessage, ServerMessage } from '../../../../../src/core/relay/protocol';
import { add, addDamagedLarge, harness, slowReader, TOKEN, type Harness } from '../../support/subscriberHarness';

type Delivery = DeliveryMessage['delivery'];

/** Sizes around the streaming threshold and well past it, small ones between. */
const SIZES = [10, STREAM_BODY_BYTES, STREAM_BODY_BYTES + 1, 3 * 1024 * 1024 + 2, 1, 700 * 1024, 64];

describe('relay subscribers: bodies=binary', function () {
  let h: Harness | undefined;
  const clients: WebSocket[] = [];
  afterEach(async () => {
    for (const ws of clients.splice(0)) ws.terminate();
    await h?.close();
    h = undefined;
  });

  for (const wholeBodies of [false, true]) {
    it(`on the wire: a large body's message says bodyFollows, then its bytes come as binary messages of at most PART_BYTES with nothing between${wholeBodies ? ' (a store that reads bodies whole)' : ''}`, async () => {
      h = await harness({ maxUnsentBytes: 64 * 1024 * 1024, maxQueuedBytes: 1024 * 1024 }, { wholeBodies });
      const bodies = SIZES.map((n) => randomBytes(n));
      for (const b of bodies) await add(h.store, 'default', b);
      const ws = slowReader(`${h.url}?since=0&bodies=binary`);
      clients.push(ws);
      const got: { delivery: Delivery; body: Buffer; parts: number[] }[] = [];
      let following: { left: number; chunks: Buffer[]; parts: number[]; delivery: Delivery } | undefined;
      let forwards = 0;
      const closed = once(ws, 'close') as Promise<[number]>;
      await new Promise<void>((resolve, reject) => {
        closed.then(([code]) => reject(new Error(`closed with ${code}`)), reject);
        ws.on('message', (data: Buffer) => {
          if (following) {
            following.chunks.push(data);
            following.parts.push(data.length);
            following.left -= data.length;
            assert.ok(following.left >= 0, `seq ${following.delivery.seq}: more bytes than announced`);
            if (following.left > 0) return;
            got.push({ delivery: following.delivery, body: Buffer.concat(following.chunks), parts: following.parts });
            following = undefined;
          } else {
            const msg = JSON.parse(data.toString()) as ServerMessage;
            if (msg.type === 'forward') forwards++;
            if (msg.type !== 'delivery') return;
            if (msg.delivery.bodyFollows !== undefined) {
              following = { left: msg.delivery.bodyFollows, chunks: [], parts: [], delivery: msg.delivery };
              if (got.length === 0) throw new Error('the first delivery is small');
              // While a large one is on its way: forward notices for everything, to be sent after its parts.
              for (let seq = 1; seq <= bodies.length; seq++)
                void h!.store.recordAttempt(seq, { target: 'http://app.invalid/', at: new Date().toISOString(), status: 204, ok: true, durationMs: 1 });
              return;
            }
            got.push({ delivery: msg.delivery, body: Buffer.from(msg.delivery.bodyBase64!, 'base64'), parts: [] });
          }
          if (got.length === bodies.length) resolve();
        });
      });
      assert.deepEqual(
        got.map((g) => g.delivery.seq),
        bodies.map((_, i) => i + 1),
      );
      got.forEach((g, i) => {
        const streamed = SIZES[i]! > STREAM_BODY_BYTES;
        assert.ok(g.body.equals(bodies[i]!), `body of ${g.delivery.seq}`);
        assert.equal(g.delivery.headers?.['content-type'], 'application/octet-stream');
        assert.equal(g.delivery.bodyBase64 === undefined, streamed, `seq ${g.delivery.seq}: base64 only when not streamed`);
        assert.equal(g.delivery.bodyFollows, streamed ? SIZES[i] : undefined);
        if (streamed) {
          assert.equal(g.parts.length, Math.ceil(SIZES[i]! / PART_BYTES), `seq ${g.delivery.seq}: a message per part`);
          assert.ok(Math.max(...g.parts) <= PART_BYTES);
        }
      });
      assert.ok(forwards > 0, 'forward notices arrived (between messages, or the parsing above had failed)');
    });
  }

  it("a client that does not ask gets base64 inside the message, as before (an older forward's wire)", async () => {
    h = await harness();
    const body = randomBytes(STREAM_BODY_BYTES * 2);
    await add(h.store, 'default', body);
    const ws = new WebSocket(`${h.url}?since=0`, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
    clients.push(ws);
    const [data] = (await once(ws, 'message').then(() => once(ws, 'message'))) as [Buffer]; // hello, then the delivery
    const msg = JSON.parse(data.toString()) as ServerMessage;
    assert.equal(msg.type, 'delivery');
    assert.ok(msg.type === 'delivery' && msg.delivery.bodyFollows === undefined && Buffer.from(msg.delivery.bodyBase64!, 'base64').equals(body));
  });

  it("relay/client's subscribe() asks for it: every body byte-exact and in order, bodyBase64 still readable, no bodyFollows left", async () => {
    h = await harness();
    const bodies = SIZES.map((n) => randomBytes(n));
    for (const b of bodies) await add(h.store, 'default', b);
    const seen: Delivery[] = [];
    let done!: () => void;
    const all = new Promise<void>((r) => (done = r));
    const sub = subscribe({ url: h.url, token: TOKEN, since: 0, onDelivery: (d) => void (seen.push(d) === bodies.length && done()) });
    await all;
    sub.close();
    await sub.closed;
    assert.deepEqual(
      seen.map((d) => d.seq),
      bodies.map((_, i) => i + 1),
    );
    seen.forEach((d, i) => {
      assert.ok(deliveryBody(d)?.equals(bodies[i]!), `body of ${d.seq}`);
      assert.equal(d.bodyFollows, undefined);
      assert.equal(d.bodyBase64, bodies[i]!.toString('base64'));
    });
    assert.deepEqual(
      h.upgrades.map((u) => new URL(u, 'ws://relay.invalid').searchParams.get('bodies')),
      ['binary'],
    );
  });

  it('a damaged large record: subscribe() never gets wrong bytes; the stream is cut, and after the reconnect the delivery comes without its body', async () => {
    h = await harness();
    const size = STREAM_BODY_BYTES * 2;
    await addDamagedLarge(h, size, size - 10); // in the last part: all the others were sent
    const seen: [number, string][] = [];
    const states: SubscriptionState[] = [];
    let done!: () => void;
    const both = new Promise<void>((r) => (done = r));
    const sub = subscribe({
      url: h.url,
      token: TOKEN,
      since: 0,
      backoff: { initialMs: 1, maxMs: 1 },
      onState: (s) => states.push(s),
      onDelivery: (d) => void (seen.push([d.seq, deliveryBody(d)?.toString() ?? 'no body']) === 2 && done()),
    });
    await both;
    sub.close();
    await sub.closed;
    assert.deepEqual(seen, [
      [1, 'no body'],
      [2, '{"after":1}'],
    ]);
    assert.ok(
      states.some((s) => s.state === 'reconnecting'),
      'the connection was cut mid-body',
    );
    assert.equal(h.store.integrity().corruptRecords, 1);
  });
});

describe('relay/client FollowingBody: what a subscriber accepts of a relay', function () {
  const message = (bodyFollows: unknown) =>
    ({ type: 'delivery', delivery: { seq: 7, bodyFollows } }) as unknown as Extract<ServerMessage, { type: 'delivery' }>;

  it('refuses an announced length that is not a byte count it accepts, naming the delivery', () => {
    for (const n of [-1, 1.5, MAX_FOLLOWING_BODY + 1, '12', null, Number.NaN])
      assert.throws(() => new FollowingBody(message(n)), /delivery 7: the relay announced a body of .* bytes \(at most \d+\)/, String(n));
  });

  it('copies messages of frames into one body and refuses bytes past the announced length', () => {
    const body = randomBytes(1000);
    const f = new FollowingBody(message(1000));
    f.add([body.subarray(0, 1), body.subarray(1, 400)]);
    assert.equal(f.whole, false);
    f.add([body.subarray(400)]);
    assert.equal(f.whole, true);
    const done = f.done();
    assert.ok(deliveryBody(done.delivery)?.equals(body));
    assert.equal('bodyFollows' in done.delivery, false);
    const over = new FollowingBody(message(2));
    assert.throws(() => over.add([Buffer.from('abc')]), /delivery 7: the relay sent more than the 2 body bytes it announced/);
    assert.equal(new FollowingBody(message(0)).whole, true, 'an empty body is whole at once');
  });
});
