// Issue 24 (the public path): a request body with a Content-Length is copied into one buffer of
// that size as its chunks arrive (relay/shared/bodyBytes.ts) instead of being kept as chunks and
// joined at the end (the body twice over). The bytes must come out the same whatever the chunks,
// and what is reserved for bodies not received yet must be given back however a request ends.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { BodyBytes, PREALLOCATED_MAX, reservedBodyBytes } from '../../../../relay/shared/bodyBytes';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { tempDir } from '../support/helpers';

/** `bytes` in chunks of the given sizes (the last takes the rest). */
function chunks(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const n of sizes) {
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  if (at < bytes.length) out.push(bytes.subarray(at));
  return out;
}

describe('request bodies read into one buffer (relay/shared/bodyBytes.ts)', () => {
  const body = randomBytes(300_000);

  it('gives the bytes as sent, with or without a length, in one chunk or many', () => {
    for (const sizes of [[], [1], [65_536, 65_536], [1, 2, 3, 100_000, 7]]) {
      for (const declared of [body.length, NaN]) {
        const b = new BodyBytes(declared);
        for (const c of chunks(body, sizes)) b.add(c);
        assert.ok(b.done().equals(body), `chunks ${sizes.join(',')}, length ${declared}`);
        assert.equal(reservedBodyBytes(), 0);
      }
    }
    const one = new BodyBytes(body.length);
    one.add(body);
    assert.equal(one.done(), body, 'a body in one chunk is that chunk, not a copy');
  });

  it('reserves only from the second chunk, gives it back when the request ends either way, and past the bound joins chunks', () => {
    const b = new BodyBytes(body.length);
    b.add(body.subarray(0, 10));
    assert.equal(reservedBodyBytes(), 0, 'not on the header alone, nor for a body in one chunk');
    b.add(body.subarray(10, 20));
    assert.equal(reservedBodyBytes(), body.length);
    b.drop();
    assert.equal(reservedBodyBytes(), 0, 'an aborted request gives its reservation back');

    const huge = new BodyBytes(PREALLOCATED_MAX);
    huge.add(body.subarray(0, 10));
    huge.add(body.subarray(10, 20));
    const other = new BodyBytes(body.length);
    for (const c of chunks(body, [1000, 1000])) other.add(c);
    assert.equal(reservedBodyBytes(), PREALLOCATED_MAX, 'the second body is over the bound: read as chunks');
    assert.ok(other.done().equals(body));
    huge.drop();
    assert.equal(reservedBodyBytes(), 0);
  });

  describe('through the relay', () => {
    let relay: RelayServer;
    before(async () => (relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] })));
    after(() => relay.close());

    it('a body sent in many small writes is journaled byte-exact', async () => {
      const sock = connect(relay.port, '127.0.0.1');
      await once(sock, 'connect');
      sock.write(
        `POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1:${relay.port}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      for (const c of chunks(
        body,
        Array.from({ length: 40 }, () => 7000),
      ))
        sock.write(c);
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        sock.on('data', (d: Buffer) => /"seq":\d+/.test((text += d.toString())) && resolve(text));
      });
      sock.destroy();
      assert.match(answer, /^HTTP\/1.1 200/);
      const seq = Number(/"seq":(\d+)/.exec(answer)![1]);
      assert.ok((await relay.store.read(seq))!.body.equals(body));
      assert.equal(reservedBodyBytes(), 0);
    });
  });
});
