// Issue 24 (the public path): a large delivery's body is decoded from the WebSocket frames' bytes
// (relay/client/serverMessage.ts) instead of parsing the whole message as text. It must give the
// same delivery as JSON.parse, byte for byte, wherever the frames happen to be cut, and fall back
// to the whole parse for anything it does not recognise.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { DECODE_IN_PLACE_BYTES, deliveryBody, parseServerMessage } from '../../../../relay/client/serverMessage';
import type { DeliveryMessage } from '../../../../src/core/relay/protocol';

type Delivery = DeliveryMessage['delivery'];

function message(body: Buffer, type: 'delivery' | 'replay' = 'delivery'): { text: string; delivery: Delivery } {
  const delivery: Delivery = {
    seq: 7,
    channel: 'dev',
    receivedAt: '2026-11-26T02:00:00.000Z',
    verification: 'verified',
    event: 'push',
    size: body.length,
    forward: [{ target: 'http://127.0.0.1:1/x', status: 'pending', attempts: 0 }],
    headers: { 'content-type': 'application/json', 'x-quoted': 'say "bodyBase64":"no"' },
    bodyBase64: body.toString('base64'),
  };
  return { text: JSON.stringify({ type, delivery }), delivery };
}

/** `bytes` cut into frames at the given offsets. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const frames: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    frames.push(bytes.subarray(from, to));
    from = to;
  }
  return frames;
}

function assertSame(got: ReturnType<typeof parseServerMessage>, want: { delivery: Delivery }, body: Buffer, how: string): void {
  assert.ok(got && (got.type === 'delivery' || got.type === 'replay'), how);
  const d = got.delivery;
  assert.ok(deliveryBody(d)!.equals(body), `${how}: the body, byte-exact`);
  const { bodyBase64: _b, ...rest } = want.delivery;
  const { bodyBase64: _g, ...gotRest } = d;
  assert.deepEqual(gotRest, rest, how);
  assert.equal(d.bodyBase64, want.delivery.bodyBase64, `${how}: bodyBase64 still reads as before`);
}

describe('a large delivery decoded from the frames (relay/client/serverMessage.ts)', () => {
  // Every byte value, a length that leaves base64 padding, larger than the in-place threshold.
  const body = Buffer.concat([Buffer.from([0, 0xff, 0x22, 0x5c, 0x0a]), randomBytes(DECODE_IN_PLACE_BYTES + 1000)]);
  const m = message(body);
  const bytes = Buffer.from(m.text);
  const key = bytes.indexOf('"bodyBase64":"');
  const bodyStart = key + '"bodyBase64":"'.length;
  const bodyEnd = bytes.indexOf('"', bodyStart);

  it('one frame: the same delivery as JSON.parse gives, the body decoded without its base64 string', () => {
    const got = parseServerMessage([bytes]);
    assertSame(got, m, body, 'one frame');
    assert.equal(
      Object.getOwnPropertyDescriptor(got!.type === 'delivery' ? got!.delivery : {}, 'bodyBase64')?.get !== undefined,
      true,
      'bodyBase64 is encoded only if read',
    );
  });

  it('frames cut anywhere: inside the key, at the base64 start and end, inside a 4-character group, 1-byte frames', () => {
    const cuts: number[][] = [
      [key + 1],
      [key + 5, key + 6, key + 7],
      [bodyStart],
      [bodyStart + 1],
      [bodyStart + 2, bodyStart + 3, bodyStart + 4, bodyStart + 5],
      [bodyStart + 4097, bodyStart + 65_537],
      [bodyEnd],
      [bodyEnd + 1],
      [bodyEnd - 1, bodyEnd + 1],
      Array.from({ length: 200 }, (_, i) => key - 50 + i), // the head in 1-byte frames
      Array.from({ length: Math.floor(bytes.length / 1000) }, (_, i) => (i + 1) * 1000 - 3),
    ];
    for (const at of cuts) assertSame(parseServerMessage(cut(bytes, at)), m, body, `cut at ${at.slice(0, 4).join(',')}…`);
  });

  it('a replay message decodes alike; a binary Buffer (not frames) too', () => {
    const r = message(body, 'replay');
    const got = parseServerMessage(Buffer.from(r.text));
    assert.equal(got?.type, 'replay');
    assertSame(got, r, body, 'replay');
  });

  it('falls back to parsing the whole message (base64 with a JSON escape, no bodyBase64); bodyBase64 first decodes too', () => {
    const escaped = Buffer.from(m.text.replace(/\//g, '\\/'));
    assert.ok(escaped.length > bytes.length, 'the base64 has slashes to escape');
    assertSame(parseServerMessage([escaped]), m, body, 'escaped slashes');
    const big = { type: 'error', error: 'x'.repeat(DECODE_IN_PLACE_BYTES + 10) };
    assert.deepEqual(parseServerMessage([Buffer.from(JSON.stringify(big))]), big);
    const reordered = JSON.stringify({ type: 'delivery', delivery: { bodyBase64: m.delivery.bodyBase64, ...m.delivery, bodyBase64x: 1 } });
    const got = parseServerMessage([Buffer.from(reordered)]);
    assert.ok(got?.type === 'delivery' && deliveryBody(got.delivery)!.equals(body));
  });

  it('a small message and a message that is not JSON', () => {
    const small = message(Buffer.from('{"n":1}'));
    assert.deepEqual(parseServerMessage([Buffer.from(small.text)]), JSON.parse(small.text));
    assert.equal(parseServerMessage([Buffer.from('{"type":')]), undefined);
    assert.equal(parseServerMessage([Buffer.from('x'.repeat(DECODE_IN_PLACE_BYTES + 1))]), undefined);
  });
});
