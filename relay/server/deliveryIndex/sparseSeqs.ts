// The seqs of the rows with a rare flag (failed forwards), while they are rare: a list filtered by
// it then reads these instead of walking every row back to the oldest (a page of failed
// deliveries at ten million rows with one failed walked 22 ms). Past `cap` it gives up until it
// is built again (at the next start): the flag is no longer rare, and a walk finds the rows soon.
export class SparseSeqs {
  private readonly seqs = new Set<number>();
  /** More than `cap` rows had the flag since the set was last built: it holds nothing to go by. */
  private overflowed = false;

  constructor(private readonly cap: number) {}

  add(seq: number): void {
    if (this.overflowed) return;
    this.seqs.add(seq);
    if (this.seqs.size > this.cap) {
      this.overflowed = true;
      this.seqs.clear();
    }
  }

  delete(seq: number): void {
    this.seqs.delete(seq);
  }

  /** Empties it and starts over (a rebuild from the rows' flags follows). */
  reset(): void {
    this.overflowed = false;
    this.seqs.clear();
  }

  /** The seqs in (after, below), newest first; undefined when the set gave up (overflowed). */
  between(after: number, below: number): number[] | undefined {
    return this.overflowed ? undefined : seqsBetween(this.seqs, after, below);
  }
}

/** The seqs of `seqs` in (after, below), newest first. */
export function seqsBetween(seqs: Iterable<number>, after: number, below: number): number[] {
  const out: number[] = [];
  for (const seq of seqs) if (seq > after && seq < below) out.push(seq);
  return out.sort((a, b) => b - a);
}
