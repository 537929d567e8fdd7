// The in-memory index a JetStream store keeps: every instance builds it from the streams it
// consumes, so every instance lists, streams and counts the same deliveries. It is the file
// store's CompactIndex (typed-array rows, per-channel counters, the pending set), so both stores
// list, count and page alike. A delivery's record here is its stream message, read by seq: the
// location kept for it only carries the body's size, in the file record's layout
// (length = 4 + meta length + body, with a meta length of 0).
import type { ForwardAttempt, ForwardState, RelayDeliverySummary } from '../../../src/core/relay/protocol';
import { CompactIndex } from '../compactIndex';
import { attemptFields, indexedDelivery, stateFields } from '../storeRecords';
import type { DeliveryMeta, KeyedChannelStatus, StoredDelivery, StoreListQuery } from '../storeTypes';

export class DeliveryIndex {
  private readonly rows = new CompactIndex();

  lastSeqOf(key: string): number {
    return this.rows.lastSeqOf(key);
  }

  get size(): number {
    return this.rows.size;
  }

  /** The oldest seq held, 0 when none. */
  get firstSeq(): number {
    return this.rows.firstSeq ?? 0;
  }

  get(seq: number): StoredDelivery | undefined {
    const i = this.rows.find(seq);
    return i < 0 ? undefined : this.rows.row(i);
  }

  /** The forward state of one target of `seq` (no summary built). */
  forwardState(seq: number, target: string): ForwardState | undefined {
    const i = this.rows.find(seq);
    return i < 0 ? undefined : this.rows.forwardStateAt(i, target);
  }

  /** Adds a delivery (seqs arrive ascending; an older or repeated seq is ignored). */
  insert(meta: DeliveryMeta, size: number): StoredDelivery | undefined {
    if (!this.rows.insert(indexedDelivery(meta, 0), { segment: 0, offset: 0, length: 4 + size })) return undefined;
    return this.get(meta.seq);
  }

  applyAttempt(seq: number, attempt: ForwardAttempt, state?: ForwardState): void {
    this.rows.applyAttempt(seq, attemptFields(attempt), stateFields(state));
  }

  /**
   * The lowest seq that stays when at most `keep` deliveries remain and none received before
   * `cutoffMs`, or undefined when none stays. Walks only the deliveries that go (oldest first).
   */
  keepFrom(keep: number | undefined, cutoffMs: number | undefined): number | undefined {
    const { first, last } = this.rows.rows;
    let i = keep === undefined ? first : Math.max(first, last - keep);
    if (cutoffMs !== undefined) while (i < last && this.rows.receivedMsAt(i) < cutoffMs) i++;
    return i < last ? this.rows.seqAt(i) : undefined;
  }

  /** The seq of the newest accepted (or rejected) delivery beyond the newest `keep` of them; 0 when none is. */
  floorKeeping(keep: number, rejected: boolean): number {
    return this.rows.floorKeeping(keep, rejected);
  }

  /** Rejected deliveries up to `upTo` leave every list and count (--keep-rejected). */
  hideRejectedUpTo(upTo: number): void {
    this.rows.hideRejectedUpTo(upTo);
  }

  /** Forgets every delivery below `minSeq`; returns how many. */
  dropBelow(minSeq: number): number {
    return this.rows.dropBelow(minSeq);
  }

  after(since: number, channel?: string): IterableIterator<StoredDelivery> {
    return this.rows.after(since, channel);
  }

  pending(): StoredDelivery[] {
    return this.rows.pending();
  }

  list(q: StoreListQuery): RelayDeliverySummary[] {
    return this.rows.list(q);
  }

  channels(): KeyedChannelStatus[] {
    return this.rows.channelStatus();
  }
}
