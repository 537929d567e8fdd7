// Plain counters for the hot path: adding to a number in two small maps, no label hashing, no
// allocation after the first time a label pair is seen. The metrics' collect() reads them.

/** Counts (and byte sums) by a pair of label values. */
export class Tally {
  private readonly byFirst = new Map<string, Map<string, { n: number; bytes: number }>>();

  add(first: string, second: string, n: number, bytes: number): void {
    let inner = this.byFirst.get(first);
    if (!inner) this.byFirst.set(first, (inner = new Map()));
    const cell = inner.get(second);
    if (cell) {
      cell.n += n;
      cell.bytes += bytes;
    } else inner.set(second, { n, bytes });
  }

  forEach(visit: (first: string, second: string, n: number, bytes: number) => unknown): void {
    for (const [first, inner] of this.byFirst) for (const [second, c] of inner) visit(first, second, c.n, c.bytes);
  }
}

/**
 * Label values from an open set (channel names, target URLs) kept to at most `cap` distinct ones:
 * the first `cap` seen keep their own label, later ones share '_other'. So a flood of implicit
 * channels or replay targets cannot blow up the series count. Values `reserved` says are the
 * relay's own (configured and API channels: as many as the admin made) always get their own label
 * and take none of the `cap`, so unauthenticated posts to made-up names cannot crowd them out.
 */
export class BoundedLabels {
  private readonly seen = new Map<string, string>();
  private open = 0;

  constructor(
    private readonly cap: number,
    private readonly shape: (raw: string) => string = (raw) => raw,
    private readonly reserved: (raw: string) => boolean = () => false,
  ) {}

  of(raw: string): string {
    const known = this.seen.get(raw);
    if (known !== undefined) return known;
    const own = this.reserved(raw);
    if (!own && this.open >= this.cap) return '_other';
    if (!own) this.open++;
    const label = this.shape(raw);
    this.seen.set(raw, label);
    return label;
  }
}
