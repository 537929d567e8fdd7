// Promises of values kept by key under a bound on entries and bytes, oldest out first: a value
// is built once however many callers ask for it while it is kept. A promise that rejects is
// forgotten at once (the next caller builds again).
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, Promise<V>>();
  private readonly sizes = new Map<K, number>();
  private bytes = 0;

  constructor(
    private readonly sizeOf: (value: V) => number,
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The kept promise for `key`, or `build()`'s, kept. */
  get(key: K, build: () => Promise<V>): Promise<V> {
    let p = this.entries.get(key);
    if (p) return p;
    p = build();
    const kept = p;
    this.entries.set(key, kept);
    kept.then(
      (value) => {
        if (this.entries.get(key) !== kept) return;
        const n = this.sizeOf(value);
        this.sizes.set(key, n);
        this.bytes += n;
        this.evict();
      },
      () => this.entries.get(key) === kept && this.forget(key),
    );
    this.evict();
    return kept;
  }

  forget(key: K): void {
    if (!this.entries.delete(key)) return;
    this.bytes -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      this.forget(key);
    }
  }
}
