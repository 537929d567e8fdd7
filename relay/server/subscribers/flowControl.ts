// Flow control for the subscribers of /ws: the bytes that may wait for one subscriber, one token
// and the whole relay. A message is queued on a subscriber's connection only while there is room
// (room() waits for the connection to drain); a subscriber with more than maxUnsent bytes owed is
// dropped with a close code that says to resume by seq. A streamed delivery's fragments go out
// together: other messages wait (deferred) until its last fragment.
import { WS_CLOSE_SLOW_SUBSCRIBER } from '../../../src/core/relay/protocol';
import type { Subscriber } from './subscriber';

export interface FlowLimits {
  /** Bytes that may wait for one subscriber before it is dropped. */
  maxUnsent: number;
  /** The pump writes while less than this is queued (a delivery larger than it waits for an empty queue). */
  lowWater: number;
  /** Bytes queued on the connections of one token's subscribers. */
  maxQueuedPerToken: number;
  /** Bytes queued on the connections of all subscribers. */
  maxQueued: number;
}

export class FlowControl {
  private queuedTotal = 0;
  private readonly queuedByToken = new Map<string, number>();
  private droppedCount = 0;

  constructor(
    private readonly limits: FlowLimits,
    /** Forgets a dropped subscriber (the hub's indexes and per-token count). */
    private readonly onDrop: (sub: Subscriber) => void,
  ) {}

  /** Bytes queued on all subscribers' connections right now. */
  get queued(): number {
    return this.queuedTotal;
  }

  /** Subscribers dropped for being too slow, since start. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Live delivery bytes owed to a stalled subscriber: past the bound, it is dropped. */
  owe(sub: Subscriber, bytes: number): void {
    sub.lagBytes += bytes;
    if (sub.unsent + sub.lagBytes > this.limits.maxUnsent) this.drop(sub);
  }

  /** Drops a subscriber that fell too far behind, with a close code that says to resume by seq. */
  drop(sub: Subscriber): void {
    if (sub.dropped) return;
    sub.dropped = true;
    this.droppedCount++;
    this.onDrop(sub);
    sub.ws.close(WS_CLOSE_SLOW_SUBSCRIBER, `too slow: over ${this.limits.maxUnsent} bytes waiting; resume with since=${sub.acked}`);
    // The close frame waits behind what is queued; a client that never reads is cut after a grace.
    setTimeout(() => sub.ws.terminate(), 5_000).unref();
  }

  /**
   * Queues bytes on the connection; a message that would pass the bound drops the subscriber. A
   * `fragment` (fin: it ends a WebSocket message) belongs to the delivery being streamed; any other
   * message written meanwhile waits until that delivery's end (WebSocket messages cannot
   * interleave, and the binary parts of a body must follow its message).
   */
  write(sub: Subscriber, msg: Buffer, options: { delivery?: boolean; fragment?: { fin: boolean } } = {}): void {
    if (!sub.open) return;
    if (!options.delivery && !options.fragment && sub.unsent + msg.length > this.limits.maxUnsent) return this.drop(sub);
    if (sub.fragmenting && !options.fragment) {
      sub.deferred.push(msg);
      sub.deferredBytes += msg.length;
      return;
    }
    const big = options.delivery && msg.length > this.limits.lowWater ? msg.length : 0;
    if (big) sub.oversize = big;
    this.account(sub, msg.length);
    // Callbacks run in write order (also with an error when the connection closes), so once the
    // last write's has run, `queued` is back to 0.
    sub.lastWrite = new Promise<void>((resolve) =>
      sub.ws.send(msg, { binary: true, fin: options.fragment?.fin ?? true }, () => {
        this.account(sub, -msg.length);
        if (big && sub.oversize === big) sub.oversize = 0;
        resolve();
      }),
    );
  }

  /** Counts bytes queued on a subscriber's connection, for it, its token and the relay. */
  private account(sub: Subscriber, bytes: number): void {
    sub.queued += bytes;
    this.queuedTotal += bytes;
    const t = (this.queuedByToken.get(sub.token) ?? 0) + bytes;
    if (t > 0) this.queuedByToken.set(sub.token, t);
    else this.queuedByToken.delete(sub.token);
  }

  /** Writes the messages that waited for a fragmented delivery to end. */
  flushDeferred(sub: Subscriber): void {
    sub.fragmenting = false;
    const msgs = sub.deferred.splice(0);
    sub.deferredBytes = 0;
    for (const m of msgs) this.write(sub, m);
  }

  /**
   * Waits until `bytes` more may be queued for `sub`: under its low-water mark and its token's and
   * the relay's bounds. A subscriber with nothing queued always may (so every one makes progress).
   */
  async room(sub: Subscriber, bytes: number): Promise<void> {
    const over = () =>
      sub.queued > 0 &&
      (sub.queued + bytes > this.limits.lowWater ||
        (this.queuedByToken.get(sub.token) ?? 0) + bytes > this.limits.maxQueuedPerToken ||
        this.queuedTotal + bytes > this.limits.maxQueued);
    while (sub.open && over()) {
      sub.stalled = true;
      await sub.lastWrite;
    }
    sub.stalled = false;
    sub.lagBytes = 0;
  }
}
