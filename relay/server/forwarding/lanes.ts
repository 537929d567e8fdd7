// Per-target forwarding lanes: the forwards ready to run (in seq order), those running, and those
// parked until their next scheduled attempt. The forwarder runs at most `perTarget` attempts of a
// lane at once and picks lanes round-robin, so one slow target cannot take every slot. A target is
// a URL, not an origin: each lane has its own connection pool (undici pools per origin, so two
// paths on one host:port would share one, and a hanging path would hold the healthy one's
// connections until its attempts timed out).
import { Agent, type Dispatcher } from 'undici';

/** Seqs in ascending order, with an O(1) take from the front and cheap appends of higher seqs. */
export class SeqQueue {
  private items: number[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  add(seq: number): void {
    const last = this.items.length > this.head ? this.items[this.items.length - 1]! : -Infinity;
    if (seq > last) {
      this.items.push(seq);
      return;
    }
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.items[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, seq);
  }

  /** Adds many at once (one sort instead of one insert each). */
  addMany(seqs: number[]): void {
    if (seqs.length === 0) return;
    this.items = this.items
      .slice(this.head)
      .concat(seqs)
      .sort((a, b) => a - b);
    this.head = 0;
  }

  shift(): number | undefined {
    if (this.head >= this.items.length) return undefined;
    const seq = this.items[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return seq;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

export class Lane {
  running = 0;
  /** Forwards waiting for a slot, in seq order. */
  readonly ready = new SeqQueue();
  /** Seqs ready or running (a forward is queued at most once). */
  readonly busy = new Set<number>();
  /** Bytes of queued fresh deliveries kept in memory (the forwarder bounds their total). */
  readonly held = new Map<number, { body: Buffer; headers: string[] }>();
  /** Forwards waiting for their next scheduled attempt: seq → timer. */
  readonly parked = new Map<number, ReturnType<typeof setTimeout>>();
  private pool: Agent | undefined;

  constructor(
    readonly target: string,
    private readonly connections: number,
  ) {}

  /** This target's own keep-alive connections (at most the lane's concurrency), made at first use. */
  get dispatcher(): Dispatcher {
    return (this.pool ??= new Agent({ keepAliveTimeout: 10_000, connections: this.connections }));
  }

  /** Cuts this target's connections (in-flight attempts fail; they stay pending in the journal). */
  async destroy(): Promise<void> {
    await this.pool?.destroy().catch(() => undefined);
    this.pool = undefined;
  }

  /** Takes every parked forward off its timer, in seq order. */
  unparkAll(filter: (seq: number) => boolean = () => true): number[] {
    const out: number[] = [];
    for (const [seq, timer] of this.parked) {
      if (!filter(seq)) continue;
      clearTimeout(timer);
      this.parked.delete(seq);
      out.push(seq);
    }
    return out.sort((a, b) => a - b);
  }

  clear(): void {
    for (const t of this.parked.values()) clearTimeout(t);
    this.parked.clear();
    this.ready.clear();
    this.held.clear();
  }
}
