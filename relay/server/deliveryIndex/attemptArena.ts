// Forward attempts, packed: one row per attempt in typed-array columns (time, duration, status,
// ok/replay flags, target id, next attempt of the same delivery), error texts beside them.
// Each delivery holds the first and last row of its chain; ForwardAttempt objects are built only
// when asked for. Rows of dropped deliveries are reclaimed by compact().
import type { ForwardAttempt } from '../../../src/core/relay/protocol';
import type { Interner } from './interner';

export interface AttemptFields {
  target: string;
  atMs: number;
  status?: number;
  ok: boolean;
  durationMs: number;
  error?: string;
  replay?: boolean;
}

const OK = 1;
const REPLAY = 2;

export class AttemptArena {
  private at = new Float64Array(1024);
  private duration = new Float64Array(1024);
  private status = new Uint16Array(1024);
  private flags = new Uint8Array(1024);
  private target = new Uint16Array(1024);
  private next = new Int32Array(1024);
  private errors = new Map<number, string>();
  private used = 0;
  /** Rows still reachable from a delivery. */
  live = 0;

  constructor(private readonly targets: Interner) {}

  get rows(): number {
    return this.used;
  }

  /** Appends an attempt after `tail` (-1: the first of its chain); returns its row. */
  push(a: AttemptFields, tail: number): number {
    if (this.used === this.at.length) this.resize(this.used * 2);
    const r = this.used++;
    this.at[r] = a.atMs;
    this.duration[r] = a.durationMs;
    this.status[r] = a.status ?? 0;
    this.flags[r] = (a.ok ? OK : 0) | (a.replay ? REPLAY : 0);
    this.target[r] = this.targets.id(a.target);
    this.next[r] = -1;
    if (a.error !== undefined) this.errors.set(r, a.error);
    if (tail >= 0) this.next[tail] = r;
    this.live++;
    return r;
  }

  private resize(capacity: number): void {
    const grow = <T extends Float64Array | Uint16Array | Uint8Array | Int32Array>(col: T): T => {
      const fresh = new (col.constructor as new (n: number) => T)(capacity);
      fresh.set(col.subarray(0, Math.min(this.used, capacity)));
      return fresh;
    };
    this.at = grow(this.at);
    this.duration = grow(this.duration);
    this.status = grow(this.status);
    this.flags = grow(this.flags);
    this.target = grow(this.target);
    this.next = grow(this.next);
  }

  /** The last row of the chain starting at `head`, and its length. */
  chainEnd(head: number): { tail: number; count: number } {
    let tail = head;
    let count = 1;
    for (let r = this.next[head]!; r >= 0; r = this.next[r]!, count++) tail = r;
    return { tail, count };
  }

  /** The attempts of the chain starting at `head`. */
  list(head: number): ForwardAttempt[] {
    const out: ForwardAttempt[] = [];
    for (let r = head; r >= 0; r = this.next[r]!) {
      const error = this.errors.get(r);
      out.push({
        target: this.targets.name(this.target[r]!),
        at: new Date(this.at[r]!).toISOString(),
        ...(this.status[r] ? { status: this.status[r] } : {}),
        ok: (this.flags[r]! & OK) !== 0,
        durationMs: this.duration[r]!,
        ...(error !== undefined ? { error } : {}),
        ...(this.flags[r]! & REPLAY ? { replay: true } : {}),
      });
    }
    return out;
  }

  /**
   * Copies the chains starting at `heads` to fresh columns, dropping every other row; `moved`
   * is told each chain's new head and tail.
   */
  compact(heads: Int32Array, moved: (index: number, head: number, tail: number) => void): void {
    const old = { at: this.at, duration: this.duration, status: this.status, flags: this.flags, target: this.target, next: this.next, errors: this.errors };
    const capacity = Math.max(1024, this.live * 2);
    this.at = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
    this.status = new Uint16Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.target = new Uint16Array(capacity);
    this.next = new Int32Array(capacity);
    this.errors = new Map();
    this.used = 0;
    this.live = 0;
    heads.forEach((head, index) => {
      let first = -1;
      let tail = -1;
      for (let r = head; r >= 0; r = old.next[r]!) {
        const error = old.errors.get(r);
        tail = this.push(
          {
            target: this.targets.name(old.target[r]!),
            atMs: old.at[r]!,
            status: old.status[r] || undefined,
            ok: (old.flags[r]! & OK) !== 0,
            durationMs: old.duration[r]!,
            error,
            replay: (old.flags[r]! & REPLAY) !== 0,
          },
          tail,
        );
        if (first < 0) first = tail;
      }
      if (first >= 0) moved(index, first, tail);
    });
  }
}
