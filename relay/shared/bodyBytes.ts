// The bytes of a request body as they arrive. With a Content-Length, they are copied into one
// buffer of that size as each chunk comes (the chunk is garbage at once), instead of keeping every
// chunk and joining them at the end, which held the body twice (with TLS, 25 MB deliveries took
// the relay's RSS up by 3-4× the body). A body in one chunk stays that chunk. The buffer is taken
// at the second chunk, not on the header's word alone, and the bytes so reserved by all requests
// in flight are bounded
// (PREALLOCATED_MAX): past it, or without a length (chunked), the chunks are joined at the end.
// A large body's garbage is collected as it comes (./largeBodyGc.ts).
import { bodyBytesPassed, takingBody } from './largeBodyGc';

/** Bytes that requests in flight may have reserved, process-wide, for bodies not received yet. */
export const PREALLOCATED_MAX = 256 * 1024 * 1024;
let reserved = 0;

/** Bytes reserved right now by bodies being received (for tests and metrics). */
export function reservedBodyBytes(): number {
  return reserved;
}

export class BodyBytes {
  private chunks: Buffer[] = [];
  private into: Buffer | undefined;
  private held = 0;
  /** Bytes received so far. */
  length = 0;

  /** `declared`: the request's Content-Length (NaN when absent), already checked against the cap. */
  constructor(private readonly declared: number) {}

  add(chunk: Buffer): void {
    // A body in one chunk is that chunk (no copy); from the second, into one buffer when there is a length.
    if (!this.into && this.chunks.length === 1 && this.reserve()) {
      this.chunks[0]!.copy(this.into!, 0);
      this.chunks = [];
    }
    if (this.into && this.length + chunk.length <= this.into.length) {
      chunk.copy(this.into, this.length);
      bodyBytesPassed(this.into.length, chunk.length);
    } else {
      // More than declared (the HTTP parser does not let that happen; kept safe anyway): back to chunks.
      if (this.into) this.chunks.push(this.into.subarray(0, this.length));
      this.into = undefined;
      this.chunks.push(chunk);
    }
    this.length += chunk.length;
  }

  /** The body (the reservation given back). */
  done(): Buffer {
    this.release();
    if (this.into) return this.into.subarray(0, this.length);
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
  }

  /** Nothing more will come (too large, aborted): the reservation given back, the bytes dropped. */
  drop(): void {
    this.release();
    this.chunks = [];
    this.into = undefined;
  }

  private reserve(): boolean {
    const n = this.declared;
    if (!(Number.isInteger(n) && n > 0) || reserved + n > PREALLOCATED_MAX) return false;
    reserved += n;
    this.held = n;
    takingBody(n);
    this.into = Buffer.allocUnsafe(n);
    return true;
  }

  private release(): void {
    reserved -= this.held;
    this.held = 0;
  }
}
