// A delivery message whose body is too large to hold once per subscriber goes as the fragments of
// one WebSocket message: the JSON up to `"bodyBase64":"`, the body's base64 read from the store
// part by part as the subscriber's connection drains, then `"}}`. A subscriber holds one part at
// a time, never the message, so subscribers stuck at different large deliveries cost a part each
// instead of a copy each; the client receives one ordinary message. A store that cannot read
// parts (JetStream: a message is fetched whole) is read whole, under a relay-wide bound on the
// bytes so held. A subscriber that asked for `bodies=binary` gets the message without the body
// and then the body's raw bytes, a binary message per part: it copies each part into the body as
// it comes, so it never holds the body's base64 (1.33×) in frames beside the body.
import type { DeliveryMessage } from '../../../src/core/relay/protocol';
import { bodyGone } from './deliveryMessages';
import { bodyBytesPassed } from '../../shared/largeBodyGc';
import { headerRecord } from '../store/store';
import type { BodyReader, RelayStore, StoredDelivery } from '../base/storeTypes';

/** Body bytes per fragment: a multiple of 3, so the fragments' base64 joins into the body's. */
export const PART_BYTES = 48 * 1024;

export interface MessagePart {
  data: Buffer;
  /** Ends a WebSocket message (base64: the last fragment; binary: every part). */
  fin: boolean;
}

/** Waits for room under a byte bound (one taker always gets in, however large). */
class ByteGate {
  private held = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async take(n: number): Promise<() => void> {
    while (this.held > 0 && this.held + n > this.max) await new Promise<void>((r) => this.waiting.push(r));
    this.held += n;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.held -= n;
      for (const wake of this.waiting.splice(0)) wake();
    };
  }
}

export class DeliveryStreams {
  private readonly gate: ByteGate;

  /** `maxHeldBytes`: bodies read whole (a store without openBody) held at once, relay-wide. */
  constructor(
    private readonly store: RelayStore,
    maxHeldBytes: number,
  ) {
    this.gate = new ByteGate(maxHeldBytes);
  }

  /**
   * The fragments of `entry`'s message with headers and body; undefined when the body cannot be
   * read (damaged); throws StoreUnavailableError when the store did not answer in time.
   */
  async open(entry: StoredDelivery, binary: boolean): Promise<AsyncGenerator<MessagePart> | undefined> {
    const encode = binary ? binaryParts : fragments;
    if (this.store.openBody) {
      const body = await this.store.openBody(entry.seq).catch(bodyGone);
      return body && encode(entry, body);
    }
    const release = await this.gate.take(entry.size);
    const r = await this.store.read(entry.seq).catch((err: unknown) => (release(), bodyGone(err)));
    if (!r) {
      release();
      return undefined;
    }
    let at = 0;
    const whole: BodyReader = { meta: r.meta, size: r.body.length, next: async (max) => r.body.subarray(at, (at += max)) };
    return encode(entry, whole, release);
  }
}

/** One message: the JSON up to the body's base64, the base64 part by part, then its end. */
async function* fragments(entry: StoredDelivery, body: BodyReader, release?: () => void): AsyncGenerator<MessagePart> {
  try {
    const delivery: DeliveryMessage['delivery'] = { ...entry.summary, headers: headerRecord(body.meta.headers), bodyBase64: '' };
    const json = JSON.stringify({ type: 'delivery', delivery } satisfies DeliveryMessage);
    const tail = '"bodyBase64":""}}';
    if (!json.endsWith(tail)) throw new Error('delivery message: bodyBase64 is not its last field');
    yield { data: Buffer.from(json.slice(0, -3)), fin: false };
    for await (const part of bodyParts(entry, body)) yield { data: Buffer.from(part.toString('base64'), 'latin1'), fin: false };
    yield { data: Buffer.from('"}}'), fin: true };
  } finally {
    release?.();
  }
}

/** The message with `bodyFollows`, then the body's bytes, a message per part. */
async function* binaryParts(entry: StoredDelivery, body: BodyReader, release?: () => void): AsyncGenerator<MessagePart> {
  try {
    const delivery: DeliveryMessage['delivery'] = { ...entry.summary, headers: headerRecord(body.meta.headers), bodyFollows: body.size };
    yield { data: Buffer.from(JSON.stringify({ type: 'delivery', delivery } satisfies DeliveryMessage)), fin: true };
    for await (const part of bodyParts(entry, body)) yield { data: part, fin: true };
  } finally {
    release?.();
  }
}

/** The body's bytes, PART_BYTES at a time (each a buffer of its own: it is queued as it is). */
async function* bodyParts(entry: StoredDelivery, body: BodyReader): AsyncGenerator<Buffer> {
  for (let left = body.size; left > 0;) {
    const part = await body.next(Math.min(PART_BYTES, left));
    if (part.length === 0) throw new Error(`delivery ${entry.seq}: body ended early`);
    left -= part.length;
    bodyBytesPassed(body.size, part.length);
    yield part;
  }
}
