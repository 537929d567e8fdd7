// A row's body size and record length, two bytes each: the size itself below 64 KiB, the length
// as what its record holds beyond the body (meta and framing: length - size + 1; 0 for a
// backend that keeps no length). A value that does not fit is kept by seq in a map beside.
import type { Columns } from './indexColumns';

const WIDE = 0xffff;

export class RecordSizes {
  private readonly sizes = new Map<number, number>();
  private readonly lengths = new Map<number, number>();

  set(c: Columns, i: number, seq: number, size: number, length: number): void {
    const small = Number.isInteger(size) && size >= 0 && size < WIDE;
    c.size[i] = small ? size : WIDE;
    if (!small) this.sizes.set(seq, size);
    const extra = length === 0 ? 0 : length - size + 1;
    const fits = Number.isInteger(extra) && (extra > 0 || length === 0) && extra < WIDE;
    c.extra[i] = fits ? extra : WIDE;
    if (!fits) this.lengths.set(seq, length);
  }

  size(c: Columns, i: number, seq: number): number {
    const s = c.size[i]!;
    return s === WIDE ? this.sizes.get(seq)! : s;
  }

  length(c: Columns, i: number, seq: number): number {
    const e = c.extra[i]!;
    return e === WIDE ? this.lengths.get(seq)! : e === 0 ? 0 : this.size(c, i, seq) + e - 1;
  }

  /** Forgets row `seq`. */
  drop(seq: number): void {
    this.sizes.delete(seq);
    this.lengths.delete(seq);
  }
}
