// The forward attempts of the index's rows. Most deliveries have one attempt, to their one
// target, without an error: that first attempt is held in the row itself (./indexColumns.ts: ms
// after the receipt and duration in µs, 8 bytes; ok and replay flags; its status in the row's
// code, ./rowCodes.ts) when each part fits exactly. Every other attempt goes to the attempt arena, as a chain kept by seq.
import type { ForwardAttempt } from '../../../src/core/relay/protocol';
import { AttemptArena, type AttemptFields } from './attemptArena';
import { type Columns, INLINE, INLINE_OK, INLINE_REPLAY } from './indexColumns';
import type { RowCodes } from './rowCodes';
import type { Interner } from './interner';

export class RowAttempts {
  readonly arena: AttemptArena;
  /** The first arena row of the attempts not held in their row, by seq (chains are short: their ends are walked to). */
  private readonly chains = new Map<number, number>();

  constructor(
    targetNames: Interner,
    private readonly codes: RowCodes,
  ) {
    this.arena = new AttemptArena(targetNames);
  }

  /** Appends an attempt of row `i` (`seq`; `target`: its one target, if it has one). */
  push(c: Columns, i: number, seq: number, target: string | undefined, a: AttemptFields): void {
    if (target !== undefined && !(c.flags[i]! & INLINE) && !(this.chains.size > 0 && this.chains.has(seq)) && this.inline(c, i, seq, target, a)) return;
    const head = this.chains.get(seq);
    const r = this.arena.push(a, head === undefined ? -1 : this.arena.chainEnd(head).tail);
    if (head === undefined) this.chains.set(seq, r);
  }

  /** Holds `a` in row `i` if each part fits exactly. */
  private inline(c: Columns, i: number, seq: number, target: string, a: AttemptFields): boolean {
    if (a.target !== target || a.error !== undefined) return false;
    const at = a.atMs - c.receivedMs.get(i);
    const us = Math.round(a.durationMs * 1000);
    if (!(Number.isInteger(a.atMs) && Number.isInteger(at) && at >= 0 && at <= 0xffffffff && us / 1000 === a.durationMs && us >= 0 && us <= 0xffffffff))
      return false;
    c.iAt[i] = at;
    c.iDur[i] = us;
    const t = this.codes.get(c, i, seq);
    this.codes.set(c, i, seq, t.attempts, t.last, a.status ?? 0);
    c.flags[i]! |= INLINE | (a.ok ? INLINE_OK : 0) | (a.replay ? INLINE_REPLAY : 0);
    return true;
  }

  /** The attempts of row `i` (`seq`; `target`: its one target), oldest first. */
  list(c: Columns, i: number, seq: number, target: string | undefined): ForwardAttempt[] {
    const head = this.chains.get(seq);
    const out = head === undefined ? [] : this.arena.list(head);
    const f = c.flags[i]!;
    if (f & INLINE) {
      const status = this.codes.get(c, i, seq).held;
      out.unshift({
        target: target!,
        at: new Date(c.receivedMs.get(i) + c.iAt[i]!).toISOString(),
        ...(status ? { status } : {}),
        ok: (f & INLINE_OK) !== 0,
        durationMs: c.iDur[i]! / 1000,
        ...(f & INLINE_REPLAY ? { replay: true } : {}),
      });
    }
    return out;
  }

  /** Forgets the attempts of row `seq`. */
  drop(seq: number): void {
    const head = this.chains.get(seq);
    if (head === undefined) return;
    this.arena.live -= this.arena.chainEnd(head).count;
    this.chains.delete(seq);
  }

  /** Reclaims the arena's rows of dropped deliveries once they are most of it. */
  compact(): void {
    if (this.arena.rows <= 4096 || this.arena.live * 2 >= this.arena.rows) return;
    const seqs = [...this.chains.keys()];
    this.arena.compact(Int32Array.from(this.chains.values()), (k, head) => this.chains.set(seqs[k]!, head));
  }
}
