// Paging for long lists: the tree shows one page and a "Load more…" row, so a webhook with
// 10,000 deliveries paints as fast as one with 50.

export const DEFAULT_PAGE_SIZE = 50;

/**
 * Items loaded so far for one list, and how many exist in total.
 * The source pages a newest-first list by offset, so an item that arrives between two pages shifts
 * the next page by one and repeats an item: with `keyOf`, items whose key is already loaded are dropped
 * (a tree rejects two rows with one id), and the offset counts what the source sent, not what was kept.
 */
export class PagedList<T> {
  private readonly loaded: T[] = [];
  private readonly keys = new Set<string>();
  private totalCount: number;
  private received = 0;

  constructor(
    total = 0,
    private readonly keyOf?: (item: T) => string,
  ) {
    this.totalCount = total;
  }

  get items(): readonly T[] {
    return this.loaded;
  }
  get total(): number {
    return this.totalCount;
  }
  /** Offset of the next page to request. */
  get nextOffset(): number {
    return this.received;
  }
  get hasMore(): boolean {
    return this.received < this.totalCount;
  }

  /** Adds one page (the one at `nextOffset`). `total` is the count the source reported with that page. */
  append(page: readonly T[], total: number): void {
    this.received += page.length;
    for (const item of page) {
      if (this.keyOf) {
        const key = this.keyOf(item);
        if (this.keys.has(key)) continue;
        this.keys.add(key);
      }
      this.loaded.push(item);
    }
    // An empty page means the list ends here (items were removed meanwhile): stop offering more.
    this.totalCount = page.length === 0 ? this.received : Math.max(total, this.received);
  }
}

/** Slices an in-memory list into the first `count` items (for sources without server paging). */
export function firstPage<T>(all: readonly T[], count: number): { items: T[]; hasMore: boolean } {
  return { items: all.slice(0, count), hasMore: all.length > count };
}

export function loadMoreLabel(shown: number, total: number): string {
  return `Load more… (${shown} of ${total} shown)`;
}
