// Two column kinds that hold a number per row in fewer bytes than a Float64Array, exactly:
// - RunColumn: values that go in runs (seqs one apart: step 1; a segment number repeated: step 0)
//   kept as the runs' first rows and values; a row costs nothing while its run goes on.
// - RelColumn: integers as an offset from a base in 16 or 32 bits (record offsets in a segment,
//   receipt times within weeks), re-based when a value leaves the range and widened to a
//   Float64Array for good when the live rows' span does not fit (or a value is not an integer).
// Both are indexed by the index's physical rows and moved with them by resized().

export class RunColumn {
  private starts = new Float64Array(16);
  private values = new Float64Array(16);
  private runs = 0;
  /** Rows set: [0, rows). */
  private rows = 0;

  constructor(private readonly step: 0 | 1) {}

  /** Sets row `i`, the row after the last one set. */
  push(i: number, v: number): void {
    const r = this.runs - 1;
    if (r < 0 || this.values[r]! + this.step * (i - this.starts[r]!) !== v) {
      if (this.runs === this.starts.length) this.grow(this.runs * 2);
      this.starts[this.runs] = i;
      this.values[this.runs++] = v;
    }
    this.rows = i + 1;
  }

  get(i: number): number {
    const r = this.runOf(i);
    return this.values[r]! + this.step * (i - this.starts[r]!);
  }

  /** The run holding row `i` (the last run starting at or before it). */
  private runOf(i: number): number {
    let r = this.runs - 1;
    if (i >= this.starts[r]!) return r;
    let lo = 0;
    while (lo < r) {
      const mid = (lo + r + 1) >>> 1;
      if (this.starts[mid]! <= i) lo = mid;
      else r = mid - 1;
    }
    return lo;
  }

  /** Step 1 (values ascending): the first row in [lo, hi) whose value is >= v, else hi. */
  lowerBound(v: number, lo: number, hi: number): number {
    if (this.runs === 0) return lo;
    // The last run whose first value is <= v (values ascend across runs).
    let a = 0;
    let b = this.runs - 1;
    if (v < this.values[0]!) return lo;
    while (a < b) {
      const mid = (a + b + 1) >>> 1;
      if (this.values[mid]! <= v) a = mid;
      else b = mid - 1;
    }
    const end = a + 1 < this.runs ? this.starts[a + 1]! : this.rows;
    const row = Math.min(end, this.starts[a]! + Math.ceil((v - this.values[a]!) / (this.step || 1)));
    return Math.max(lo, Math.min(hi, row));
  }

  /** Rows [from, to) as rows [0, to - from) of a new column. */
  resized(_capacity: number, from: number, to: number): RunColumn {
    const next = new RunColumn(this.step);
    if (to > from) {
      let r = this.runOf(from);
      next.push(0, this.get(from));
      for (r++; r < this.runs && this.starts[r]! < to; r++) next.push(this.starts[r]! - from, this.values[r]!);
    }
    next.rows = Math.max(0, to - from);
    return next;
  }

  private grow(capacity: number): void {
    const starts = new Float64Array(capacity);
    const values = new Float64Array(capacity);
    starts.set(this.starts.subarray(0, this.runs));
    values.set(this.values.subarray(0, this.runs));
    this.starts = starts;
    this.values = values;
  }
}

export class RelColumn {
  private base = 0;
  private narrow: Uint16Array | Uint32Array;
  private wide: Float64Array | undefined;
  private readonly max: number;

  /** `fixedBase`: values are offsets from 0 (never re-based); `narrow`: the array to use (of the width `bits`). */
  constructor(
    private readonly bits: 16 | 32,
    private readonly fixedBase = false,
    narrow?: Uint16Array | Uint32Array,
  ) {
    this.narrow = narrow ?? (bits === 16 ? new Uint16Array(0) : new Uint32Array(0));
    this.max = bits === 16 ? 0xffff : 0xffffffff;
  }

  /** Bytes per row while narrow. */
  get bytes(): number {
    return this.bits / 8;
  }

  get length(): number {
    return this.wide ? this.wide.length : this.narrow.length;
  }

  get(i: number): number {
    return this.wide ? this.wide[i]! : this.base + this.narrow[i]!;
  }

  /** Sets row `i`; rows [live, i) are the live ones before it (kept through a re-base). */
  set(i: number, v: number, live: number): void {
    if (this.wide) {
      this.wide[i] = v;
      return;
    }
    if (i === live && !this.fixedBase && Number.isInteger(v)) this.base = v; // the only live row: its own base (bases stay integers)
    const d = v - this.base;
    if (Number.isInteger(d) && d >= 0 && d <= this.max) this.narrow[i] = d;
    else if (!this.rebase(v, live, i)) {
      this.widen();
      this.wide![i] = v;
    } else this.narrow[i] = v - this.base;
  }

  /** Moves the base so that rows [from, to) and `v` fit; false when they cannot. */
  private rebase(v: number, from: number, to: number): boolean {
    if (this.fixedBase || !Number.isInteger(v)) return false;
    let lo = v;
    let hi = v;
    for (let k = from; k < to; k++) {
      const x = this.base + this.narrow[k]!;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    if (hi - lo > this.max) return false;
    // Room on both sides: a later value a little below the oldest or far above the newest fits too.
    const base = lo - Math.floor((this.max - (hi - lo)) / 2);
    for (let k = from; k < to; k++) this.narrow[k] = this.base + this.narrow[k]! - base;
    this.base = base;
    return true;
  }

  private widen(): void {
    const wide = new Float64Array(this.narrow.length);
    for (let k = 0; k < wide.length; k++) wide[k] = this.base + this.narrow[k]!;
    this.wide = wide;
    this.narrow = new Uint32Array(0);
  }

  /** Rows [from, to) as rows [0, to - from) of a new column of `capacity` rows, narrow ones in `narrow`. */
  resized(capacity: number, from: number, to: number, narrow: Uint16Array | Uint32Array): RelColumn {
    const next = new RelColumn(this.bits, this.fixedBase, this.wide ? undefined : narrow);
    next.base = this.base;
    if (this.wide) {
      next.wide = new Float64Array(capacity);
      next.wide.set(this.wide.subarray(from, to));
    } else next.narrow.set(this.narrow.subarray(from, to));
    return next;
  }
}
