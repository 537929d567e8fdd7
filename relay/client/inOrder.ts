// Deliveries handled several at once (`forward --parallel N`) finish in any order, but what is
// acknowledged and kept as the resume point must be a contiguous prefix of what was started:
// the relay's ack is cumulative (an ack of seq 12 acknowledges every seq before it), and a
// restart resumes after the kept seq. Seqs have gaps (other channels, a filtered subscription),
// so "contiguous" means in the order they were started, not seq + 1.
// Kept here once: the subscription acks with it and the forward loop keeps its cursor with it.

/** One started seq, what it was started with, and whether it finished. */
interface Slot<T> {
  seq: number;
  value: T;
  finished: boolean;
}

export class InOrder<T = undefined> {
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

  /** What `seq` was started with, while it is held (started and not released). */
  get(seq: number): T | undefined {
    return this.bySeq.get(seq)?.value;
  }

  /** Starts `seq`, with `value`, after every seq started before it; false if it is already held. */
  start(seq: number, value: T): boolean {
    if (this.bySeq.has(seq)) return false;
    const slot: Slot<T> = { seq, value, finished: false };
    this.slots.push(slot);
    this.bySeq.set(seq, slot);
    return true;
  }

  /**
   * `seq` is done. Returns the seqs this releases, oldest first, with what they were started
   * with: `seq` and the finished ones after it, if every seq started before it is finished too;
   * else nothing (they wait for the older ones). A seq not held is released at once, alone.
   */
  finish(seq: number): { seq: number; value: T | undefined }[] {
    const slot = this.bySeq.get(seq);
    if (!slot) return [{ seq, value: undefined }];
    slot.finished = true;
    const released: { seq: number; value: T }[] = [];
    while (this.head < this.slots.length && this.slots[this.head]!.finished) {
      const s = this.slots[this.head++]!;
      this.bySeq.delete(s.seq);
      released.push({ seq: s.seq, value: s.value });
    }
    if (this.head > 1024 && this.head * 2 > this.slots.length) {
      this.slots.splice(0, this.head);
      this.head = 0;
    }
    return released;
  }
}
