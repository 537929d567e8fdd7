// Paging for long lists: the tree shows one page and a "Load more…" row, so a webhook with
// 10,000 deliveries paints as fast as one with 50.

export const DEFAULT_PAGE_SIZE = 50;

/** Items loaded so far for one list, and how many exist in total. */
export class PagedList<T> {
  private readonly loaded: T[] = [];
  private totalCount: number;

  constructor(total = 0) {
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
    return this.loaded.length;
  }
  get hasMore(): boolean {
    return this.loaded.length < this.totalCount;
  }

  /** Adds one page. `total` is the count the source reported with that page. */
  append(page: readonly T[], total: number): void {
    this.loaded.push(...page);
    this.totalCount = Math.max(total, this.loaded.length);
  }
}

/** Slices an in-memory list into the first `count` items (for sources without server paging). */
export function firstPage<T>(all: readonly T[], count: number): { items: T[]; hasMore: boolean } {
  return { items: all.slice(0, count), hasMore: all.length > count };
}

export function loadMoreLabel(shown: number, total: number): string {
  return `Load more… (${shown} of ${total} shown)`;
}
