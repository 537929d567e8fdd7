// Issue 24 (the public path): a delivery went to the WebSocket subscribers only after its
// fdatasync AND a read of its record back from the journal (the thread pool, busy with syncs).
// The ingress now hands the bytes it holds to the subscribers' message cache (SubscriberHub.hold);
// the delivery is still sent only once the store has indexed it, after its fdatasync.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { subscribe, type Subscription } from '../../../../../relay/client';
import { deliveryBody } from '../../../../../relay/client/serverMessage';
import type { DeliveryMessage } from '../../../../../src/core/relay/protocol';
import { FaultyFs } from '../../support/faultyFs';
import { post, tempDir } from '../../support/helpers';

type Delivery = DeliveryMessage['delivery'];

/** A subscriber from the relay's head; resolves once it is connected. */
async function subscriber(relay: RelayServer): Promise<{ sub: Subscription; got: Delivery[]; next: (n: number) => Promise<void> }> {
  const got: Delivery[] = [];
  let wake = () => {};
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const sub = subscribe({
    url: `ws://127.0.0.1:${relay.port}`,
    token: relay.token,
    onDelivery: (d) => {
      got.push(d);
      wake();
    },
    onState: (s) => s.state === 'open' && opened(),
  });
  await open;
  const next = (n: number) => new Promise<void>((r) => ((wake = () => got.length >= n && r()), wake()));
  return { sub, got, next };
}

describe('relay subscribers: a live delivery from the bytes the ingress holds', function () {
  this.timeout(30_000);
  let relay: RelayServer | undefined;
  let sub: Subscription | undefined;
  afterEach(async () => {
    sub?.close();
    await sub?.closed;
    await relay?.close();
    relay = sub = undefined;
  });

  it('is sent byte-exact with its headers, without reading the journal back', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const s = await subscriber(relay);
    sub = s.sub;
    const store = relay.store;
    const read = store.read.bind(store);
    let reads = 0;
    store.read = (seq) => (reads++, read(seq));
    // Not UTF-8, every byte value, and large enough to take several TCP segments (but one message).
    const body = Buffer.concat([Buffer.from([0, 0xff, 0xfe, 0x80]), randomBytes(100_000)]);
    assert.equal((await post(`${relay.url}/hooks/default`, body, { 'x-service-event': 'push', 'X-Odd-Case': 'kept' })).status, 200);
    await s.next(1);
    const d = s.got[0]!;
    assert.ok(Buffer.from(d.bodyBase64!, 'base64').equals(body), 'the body, byte-exact');
    assert.equal(d.headers!['x-service-event'], 'push');
    assert.equal(d.headers!['x-odd-case'], 'kept');
    assert.equal(reads, 0, 'sent from the bytes in memory, not read back from the journal');
    // What the journal holds is the same (a subscriber from seq 0 reads it there).
    assert.ok((await read(d.seq))!.body.equals(body));
  });

  it('a large body (fragments read from the journal) reaches the subscriber byte-exact, decoded from the frames', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const s = await subscriber(relay);
    sub = s.sub;
    const body = Buffer.concat([randomBytes(3 * 1024 * 1024 + 1), Buffer.from('"}}\\')]); // not a multiple of 3; ends like the message
    assert.equal((await post(`${relay.url}/hooks/default`, body)).status, 200);
    await s.next(1);
    const d = s.got[0]!;
    const got = deliveryBody(d)!;
    assert.equal(got.length, body.length);
    assert.ok(got.equals(body), 'byte-exact');
    assert.ok(Object.getOwnPropertyDescriptor(d, 'bodyBase64')?.get, 'decoded from the frames (no base64 string made)');
    assert.equal(d.bodyBase64, body.toString('base64'));
  });

  it('a delivery whose journal write failed is never sent, though the ingress held its bytes', async () => {
    const fs = new FaultyFs();
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [], journalFs: fs });
    const s = await subscriber(relay);
    sub = s.sub;
    fs.fail('writev', { code: 'ENOSPC', partialBytes: 10, times: 1 });
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":"lost"}')).status, 500);
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":"kept"}')).status, 200);
    await s.next(1);
    assert.deepEqual(
      s.got.map((d) => Buffer.from(d.bodyBase64!, 'base64').toString()),
      ['{"n":"kept"}'],
      'only the durable one, and its own bytes',
    );
  });
});
