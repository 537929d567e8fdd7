// The forward states of the index's rows. A one-target row keeps its state in its columns (flags,
// a one-byte attempt count and last status code); the rare parts are kept by seq beside them:
// the next attempt's time (pending rows), a count or status too big for its byte. A row with
// several targets, or a state for a target it did not list (a subscriber's), keeps objects.
import type { ForwardState } from '../../../src/core/relay/protocol';
import type { StateFields } from './indexRows';
import type { Interner } from './interner';
import { type Columns, flagsOf, OVER, stateFlags, stateObject, STATE_BITS, statusOfFlags, type StatusCodes } from './indexColumns';

export class ForwardStates {
  /** Rows that keep state objects, by seq. */
  private readonly objects = new Map<number, ForwardState[]>();
  private readonly nextMs = new Map<number, number>();
  /** Attempt counts of OVER or more, and last statuses whose code is OVER. */
  private readonly attemptsOver = new Map<number, number>();
  private readonly lastOver = new Map<number, number>();

  constructor(
    private readonly codes: StatusCodes,
    private readonly targetNames: Interner,
  ) {}

  /** Records `state` for row `i` (`seq`, listing `targets`), and its flags. */
  apply(c: Columns, i: number, seq: number, targets: readonly string[], state: StateFields): void {
    if (targets.length === 1 && targets[0] === state.target && !(this.objects.size > 0 && this.objects.has(seq))) {
      c.flags[i] = (c.flags[i]! & ~STATE_BITS) | stateFlags(state.status);
      const attempts = state.attempts >>> 0;
      c.fAttempts[i] = Math.min(attempts, OVER);
      if (attempts >= OVER) this.attemptsOver.set(seq, attempts);
      else if (this.attemptsOver.size > 0) this.attemptsOver.delete(seq);
      const last = this.codes.code(state.lastStatus);
      c.fLast[i] = last;
      if (last === OVER) this.lastOver.set(seq, state.lastStatus! & 0xffff);
      else if (this.lastOver.size > 0) this.lastOver.delete(seq);
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
      const last = c.fLast[i]! === OVER ? this.lastOver.get(seq)! : this.codes.value(c.fLast[i]!);
      const attempts = c.fAttempts[i]! === OVER ? this.attemptsOver.get(seq)! : c.fAttempts[i]!;
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
    this.attemptsOver.delete(seq);
    this.lastOver.delete(seq);
  }
}
