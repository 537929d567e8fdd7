// The WebSocket delivery messages, built once per delivery (and per bodies/summary mode) and
// shared by every subscriber that sends them: one base64 and one JSON string per delivery however
// many subscribers there are, from the bytes the ingress holds (hold) or else one journal read. Bodies over STREAM_BODY_BYTES do not come here:
// they go as fragments read from the store as each connection drains (./deliveryStream.ts), so
// subscribers stuck at different large deliveries do not hold a message each.
import type { DeliveryMessage, ReplayDeliveryMessage } from '../../../src/core/relay/protocol';
import { BoundedCache } from './boundedCache';
import { StoreUnavailableError } from '../base/errors';
import { headerRecord } from '../store/store';
import type { RelayStore, StoredDelivery } from '../base/storeTypes';

/**
 * A body that cannot be read: a damaged record goes without it (it never will be readable), but a
 * store that did not answer in time (StoreUnavailableError: JetStream while a replica hangs or the
 * connection fails over) is thrown on, so nothing is cached and the subscriber's pump tries again.
 * Sent without its body, the delivery made a forwarding subscriber fail on it and reconnect, to
 * be sent the same cached body-less message again until its forward state changed (issue 21).
 */
export function bodyGone(err: unknown): undefined {
  if (err instanceof StoreUnavailableError) throw err;
  return undefined;
}

/** The stored request a delivery message with bodies carries: its header pairs and body bytes. */
interface Held {
  headers: [string, string][];
  body: Buffer;
}

export class DeliveryMessages {
  /** Built messages by `seq:bodies`; a forward state change drops a delivery's. */
  private readonly cache: BoundedCache<string, Buffer>;
  /**
   * Bodies read, by seq, apart from the messages: they do not change when the forward state does
   * (the relay's own forward changes it for nearly every delivery, often before a subscriber that
   * is behind gets there), and a subscriber's pump reads them ahead of itself (readAhead).
   */
  private readonly bodies: BoundedCache<number, Held | undefined>;

  constructor(
    private readonly store: RelayStore,
    maxEntries = 64,
    maxBytes = 64 * 1024 * 1024,
  ) {
    this.cache = new BoundedCache((buf) => buf.length, maxEntries, maxBytes);
    // Counted by the memory they keep: a body taken from the ingress may be a view of a larger buffer.
    this.bodies = new BoundedCache((b) => (b?.body.buffer.byteLength ?? 0) + 256, maxEntries, maxBytes / 4);
  }

  /** The message for `entry`, with headers and body when `bodies`. */
  get(entry: StoredDelivery, bodies: boolean): Promise<Buffer> {
    return this.cache.get(`${entry.seq}:${bodies ? 1 : 0}`, () => this.build(entry, bodies));
  }

  /**
   * Starts reading the bodies of `entries` (those not read yet), so that reads which wait on the
   * store (a replica that hangs) overlap instead of queueing behind one another.
   */
  readAhead(entries: Iterable<StoredDelivery>): void {
    for (const e of entries) this.body(e.seq).catch(() => undefined);
  }

  /**
   * The request of delivery `seq` as it is being journaled: its message is built from these bytes
   * instead of reading them back once it is durable. Only a store that assigns the seq before the
   * write (not JetStream: seq 0 there) gives one; nothing is sent before the store indexes the
   * delivery, which it does after the write's fdatasync.
   */
  hold(seq: number, headers: [string, string][], body: Buffer): void {
    const held: Held = { headers, body };
    void this.bodies.get(seq, () => Promise.resolve(held));
  }

  /** The delivery's forward state changed: later messages must carry the new one. */
  invalidate(seq: number): void {
    if (this.cache.size === 0) return; // no subscriber has asked: nothing to build keys for
    this.cache.forget(`${seq}:1`);
    this.cache.forget(`${seq}:0`);
  }

  /** The ReplayDeliveryMessage for `entry` (built for this one request, not cached). */
  replay(entry: StoredDelivery, bodies: boolean): Promise<Buffer> {
    return this.build(entry, bodies, 'replay');
  }

  private async build(entry: StoredDelivery, bodies: boolean, type: 'delivery' | 'replay' = 'delivery'): Promise<Buffer> {
    const held = bodies ? await this.body(entry.seq) : undefined;
    const fields = held ? { headers: headerRecord(held.headers), bodyBase64: held.body.toString('base64') } : {};
    const delivery: DeliveryMessage['delivery'] = { ...entry.summary, ...fields };
    return Buffer.from(JSON.stringify({ type, delivery } satisfies DeliveryMessage | ReplayDeliveryMessage));
  }

  private body(seq: number): Promise<Held | undefined> {
    return this.bodies.get(seq, async () => {
      const r = await this.store.read(seq).catch(bodyGone);
      return r && { headers: r.meta.headers, body: r.body };
    });
  }
}
