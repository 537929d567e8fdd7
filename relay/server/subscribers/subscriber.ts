// One WebSocket subscriber of /ws as the hub (./subscribers.ts) keeps it: what it asked for, what it
// was sent and acknowledged, and the bytes waiting on its connection (./flowControl.ts).
import type { WebSocket } from 'ws';
import type { TokenScope } from '../../../src/core/relay/protocol';
import { ADMIN } from '../access/scope';

export class Subscriber {
  sent = 0;
  acked = 0;
  unacked: number[] = [];
  caughtUp = false;
  pumping = false;
  alive = true;
  dropped = false;
  /** What its token reads: all channels, or one channel identity (HelloMessage.scope). */
  scope: TokenScope = ADMIN;
  /** The channels it posts to an app (`posts=`), when it said; undefined: every channel it streams. */
  posts: ReadonlySet<string> | undefined;
  /** The pump waits for the connection to drain. */
  stalled = false;
  /** Live delivery bytes that arrived while stalled (not queued: read from the journal later). */
  lagBytes = 0;
  /** Bytes of our messages handed to the connection and not yet written to the kernel. */
  queued = 0;
  /** Size of a delivery allowed past the bound (larger than it on its own) until it is written out. */
  oversize = 0;
  /** Resolves when everything written so far has gone to the kernel. */
  lastWrite: Promise<void> = Promise.resolve();
  /** A streamed delivery is being written: other messages wait in `deferred` until its last fragment or part. */
  fragmenting = false;
  deferred: Buffer[] = [];
  deferredBytes = 0;

  constructor(
    readonly ws: WebSocket,
    readonly token: string,
    readonly channel: string | undefined,
    readonly bodies: boolean,
    since: number,
    /** Sent ForwardMessages (`forwards=0`: not). */
    readonly forwards = true,
    /** A streamed body goes as raw binary messages after its message (`bodies=binary`). */
    readonly binary = false,
  ) {
    this.sent = since;
    this.acked = since;
  }

  get open(): boolean {
    return !this.dropped && this.ws.readyState === this.ws.OPEN;
  }

  /** Bytes queued on the connection or deferred, not counting one oversize delivery. */
  get unsent(): number {
    return Math.max(0, this.queued - this.oversize) + this.deferredBytes;
  }
}
