// The WebSocket delivery messages, built once per delivery (and per bodies/summary mode) and
// shared by every subscriber that sends them: one journal read, one base64 and one JSON string
// per delivery however many subscribers there are. Bodies over STREAM_BODY_BYTES do not come here:
// they go as fragments read from the store as each connection drains (./deliveryStream.ts), so
// subscribers stuck at different large deliveries do not hold a message each.
import type { DeliveryMessage, ReplayDeliveryMessage } from '../../../src/core/relay/protocol';
import { headerRecord } from '../store/store';
import type { RelayStore, StoredDelivery } from '../store/storeTypes';

export class DeliveryMessages {
  private readonly cache = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(
    private readonly store: RelayStore,
    private readonly maxEntries = 64,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The message for `entry`, with headers and body when `bodies`. */
  get(entry: StoredDelivery, bodies: boolean): Promise<Buffer> {
    const key = `${entry.seq}:${bodies ? 1 : 0}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.build(entry, bodies);
      this.cache.set(key, p);
      p.then(
        (buf) => {
          if (this.cache.get(key) !== p) return;
          this.sizes.set(key, buf.length);
          this.bytes += buf.length;
          this.evict();
        },
        () => this.forget(key),
      );
      this.evict();
    }
    return p;
  }

  /** The delivery's forward state changed: later messages must carry the new one. */
  invalidate(seq: number): void {
    if (this.cache.size === 0) return; // no subscriber has asked: nothing to build keys for
    this.forget(`${seq}:1`);
    this.forget(`${seq}:0`);
  }

  /** The ReplayDeliveryMessage for `entry` (built for this one request, not cached). */
  replay(entry: StoredDelivery, bodies: boolean): Promise<Buffer> {
    return this.build(entry, bodies, 'replay');
  }

  private async build(entry: StoredDelivery, bodies: boolean, type: 'delivery' | 'replay' = 'delivery'): Promise<Buffer> {
    const delivery: DeliveryMessage['delivery'] = { ...entry.summary };
    if (bodies) {
      const r = await this.store.read(entry.seq).catch(() => undefined);
      if (r) {
        delivery.headers = headerRecord(r.meta.headers);
        delivery.bodyBase64 = r.body.toString('base64');
      }
    }
    return Buffer.from(JSON.stringify({ type, delivery } satisfies DeliveryMessage | ReplayDeliveryMessage));
  }

  private forget(key: string): void {
    if (!this.cache.delete(key)) return;
    this.bytes -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
  }

  private evict(): void {
    for (const key of this.cache.keys()) {
      if (this.cache.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      this.forget(key);
    }
  }
}
