// Deliveries handled several at once (`forward --parallel N`) finish in any order, but what is
// acknowledged and kept as the resume point must be a contiguous prefix of what was started:
// the relay's ack is cumulative (an ack of seq 12 acknowledges every seq before it), and a
// restart resumes after the kept seq. Seqs have gaps (other channels, a filtered subscription),
// so "contiguous" means in the order they were started, not seq + 1.
// Kept here once: the subscription acks with it and the forward loop keeps its cursor with it.

/** One started seq and, once finished, what it finished with. */
interface Slot<T> {
  seq: number;
  finished: boolean;
  value?: T;
}

export class InOrder<T = void> {
  private readonly slots: Slot<T>[] = [];
  private readonly bySeq = new Map<number, Slot<T>>();
  /** Index of the oldest slot still held (the array is compacted now and then). */
  private head = 0;

  /** Seqs started and not yet released. */
  get size(): number {
    return this.bySeq.size;
  }

  has(seq: number): boolean {
    return this.bySeq.has(seq);
  }

  /** Starts `seq` after every seq started before it; false if it is already held. */
  start(seq: number): boolean {
    if (this.bySeq.has(seq)) return false;
    const slot: Slot<T> = { seq, finished: false };
    this.slots.push(slot);
    this.bySeq.set(seq, slot);
    return true;
  }

  /**
   * `seq` is done with `value`. Returns the slots this releases, oldest first: `seq` and the
   * finished ones after it, if every seq started before it is finished too; else nothing (they
   * wait for the older ones). A seq never started is released at once, alone.
   */
  finish(seq: number, value?: T): { seq: number; value: T }[] {
    const slot = this.bySeq.get(seq);
    if (!slot) return [{ seq, value: value as T }];
    slot.finished = true;
    slot.value = value;
    const released: { seq: number; value: T }[] = [];
    while (this.head < this.slots.length && this.slots[this.head]!.finished) {
      const s = this.slots[this.head++]!;
      this.bySeq.delete(s.seq);
      released.push({ seq: s.seq, value: s.value as T });
    }
    if (this.head > 1024 && this.head * 2 > this.slots.length) {
      this.slots.splice(0, this.head);
      this.head = 0;
    }
    return released;
  }
}
