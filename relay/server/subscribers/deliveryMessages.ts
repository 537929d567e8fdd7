// The WebSocket delivery messages, built once per delivery (and per bodies/summary mode) and
// shared by every subscriber that sends them: one journal read, one base64 and one JSON string
// per delivery however many subscribers there are. Bodies over STREAM_BODY_BYTES do not come here:
// they go as fragments read from the store as each connection drains (./deliveryStream.ts), so
// subscribers stuck at different large deliveries do not hold a message each.
import type { DeliveryMessage, ReplayDeliveryMessage } from '../../../src/core/relay/protocol';
import { BoundedCache } from './boundedCache';
import { StoreUnavailableError } from '../errors';
import { headerRecord } from '../store/store';
import type { RelayStore, StoredDelivery } from '../store/storeTypes';

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

/** What a delivery message carries when it has bodies: the stored request's headers and body. */
type BodyFields = Pick<DeliveryMessage['delivery'], 'headers' | 'bodyBase64'>;

export class DeliveryMessages {
  /** Built messages by `seq:bodies`; a forward state change drops a delivery's. */
  private readonly cache: BoundedCache<string, Buffer>;
  /**
   * Bodies read, by seq, apart from the messages: they do not change when the forward state does
   * (the relay's own forward changes it for nearly every delivery, often before a subscriber that
   * is behind gets there), and a subscriber's pump reads them ahead of itself (readAhead).
   */
  private readonly bodies: BoundedCache<number, BodyFields | undefined>;

  constructor(
    private readonly store: RelayStore,
    maxEntries = 64,
    maxBytes = 64 * 1024 * 1024,
  ) {
    this.cache = new BoundedCache((buf) => buf.length, maxEntries, maxBytes);
    this.bodies = new BoundedCache((b) => (b?.bodyBase64?.length ?? 0) + 256, maxEntries, maxBytes / 4);
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
    const delivery: DeliveryMessage['delivery'] = { ...entry.summary, ...(bodies ? await this.body(entry.seq) : {}) };
    return Buffer.from(JSON.stringify({ type, delivery } satisfies DeliveryMessage | ReplayDeliveryMessage));
  }

  private body(seq: number): Promise<BodyFields | undefined> {
    return this.bodies.get(seq, async () => {
      const r = await this.store.read(seq).catch(bodyGone);
      return r && { headers: headerRecord(r.meta.headers), bodyBase64: r.body.toString('base64') };
    });
  }
}
