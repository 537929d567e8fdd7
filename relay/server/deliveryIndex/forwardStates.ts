// The forward states of the index's rows. A one-target row keeps its state in its columns (its
// status in its flags, attempt count and last status in its code: ./rowCodes.ts); the next
// attempt's time (pending rows) is kept by seq beside them. A row with several targets, or a
// state for a target it did not list (a subscriber's), keeps objects.
import type { ForwardState } from '../../../src/core/relay/protocol';
import type { StateFields } from './indexRows';
import type { Interner } from './interner';
import { type Columns, flagsOf, stateFlags, stateObject, STATE_BITS, statusOfFlags } from './indexColumns';
import type { RowCodes } from './rowCodes';

export class ForwardStates {
  /** Rows that keep state objects, by seq. */
  private readonly objects = new Map<number, ForwardState[]>();
  private readonly nextMs = new Map<number, number>();

  constructor(
    private readonly codes: RowCodes,
    private readonly targetNames: Interner,
  ) {}

  /** Records `state` for row `i` (`seq`, listing `targets`), and its flags. */
  apply(c: Columns, i: number, seq: number, targets: readonly string[], state: StateFields): void {
    if (targets.length === 1 && targets[0] === state.target && !(this.objects.size > 0 && this.objects.has(seq))) {
      c.flags[i] = (c.flags[i]! & ~STATE_BITS) | stateFlags(state.status);
      this.codes.set(c, i, seq, state.attempts >>> 0, state.lastStatus ?? 0, this.codes.get(c, i, seq).held);
      if (state.nextAttemptMs !== undefined) this.nextMs.set(seq, state.nextAttemptMs);
      else if (this.nextMs.size > 0) this.nextMs.delete(seq);
      return;
    }
    // Several targets, or a target the delivery did not list (a subscriber that forwarded it,
    // SUBSCRIBER_TARGET): the row keeps state objects from now on.
    const states = this.of(c, i, seq, targets);
    const at = states.findIndex((f) => f.target === state.target);
    if (at < 0) states.push(stateObject(this.targetNames.intern(state.target), state));
    else states[at] = stateObject(states[at]!.target, state);
    this.objects.set(seq, states);
    c.flags[i] = (c.flags[i]! & ~STATE_BITS) | flagsOf(states);
  }

  /** The forward states of row `i` (`seq`, listing `targets`): the kept objects themselves for a row that has them. */
  of(c: Columns, i: number, seq: number, targets: readonly string[]): ForwardState[] {
    const objects = this.objects.get(seq);
    if (objects) return objects;
    if (targets.length === 1) {
      const next = this.nextMs.get(seq);
      const { attempts, last } = this.codes.get(c, i, seq);
      return [
        stateObject(targets[0]!, {
          target: targets[0]!,
          status: statusOfFlags(c.flags[i]!),
          attempts,
          ...(last ? { lastStatus: last } : {}),
          ...(next !== undefined ? { nextAttemptMs: next } : {}),
        }),
      ];
    }
    return targets.map((target) => ({ target: this.targetNames.intern(target), status: 'pending' as const, attempts: 0 }));
  }

  /** Forgets row `seq`. */
  drop(seq: number): void {
    this.objects.delete(seq);
    this.nextMs.delete(seq);
  }
}
