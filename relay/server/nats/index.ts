// The in-memory index a JetStream store keeps: every instance builds it from the streams it
// consumes, so every instance lists, streams and counts the same deliveries.
import type { ChannelStatus, ForwardAttempt, ForwardState, ForwardStatus, RelayDeliverySummary } from '../../../src/core/relay/protocol';
import { sizeFields } from '../rejected';
import { headerIds } from '../storeRecords';
import type { DeliveryMeta, StoredDelivery, StoreListQuery } from '../storeTypes';

type Counts = Omit<ChannelStatus, 'name'>;

export class DeliveryIndex {
  private readonly bySeq = new Map<number, StoredDelivery>();
  /** Ascending. */
  private seqs: number[] = [];
  private readonly counts = new Map<string, Counts>();
  private readonly pendingSeqs = new Set<number>();

  get size(): number {
    return this.bySeq.size;
  }

  get firstSeq(): number {
    return this.seqs[0] ?? 0;
  }

  get(seq: number): StoredDelivery | undefined {
    return this.bySeq.get(seq);
  }

  /** Adds a delivery (seqs arrive ascending; a seq seen before is ignored). */
  insert(meta: DeliveryMeta, size: number): StoredDelivery | undefined {
    if (this.bySeq.has(meta.seq) || (this.seqs.length > 0 && meta.seq < this.seqs[this.seqs.length - 1]!)) return undefined;
    const summary: RelayDeliverySummary = {
      seq: meta.seq,
      channel: meta.channel,
      receivedAt: meta.receivedAt,
      verification: meta.verification,
      ...(meta.reason ? { reason: meta.reason } : {}),
      ...definedIds(meta.headers),
      ...sizeFields(meta, size),
      forward: meta.verification === 'rejected' ? [] : meta.targets.map((target) => ({ target, status: 'pending' as ForwardStatus, attempts: 0 })),
    };
    const d: StoredDelivery = { seq: meta.seq, summary, attempts: [], receivedMs: Date.parse(meta.receivedAt) };
    this.bySeq.set(meta.seq, d);
    this.seqs.push(meta.seq);
    this.count(d, +1);
    return d;
  }

  applyAttempt(seq: number, attempt: ForwardAttempt, state?: ForwardState): StoredDelivery | undefined {
    const d = this.bySeq.get(seq);
    if (!d) return undefined;
    this.count(d, -1);
    d.attempts.push(attempt);
    if (state) {
      const i = d.summary.forward.findIndex((f) => f.target === state.target);
      if (i >= 0) d.summary.forward[i] = state;
      else d.summary.forward.push(state); // a subscriber that forwarded it (SUBSCRIBER_TARGET)
    }
    this.count(d, +1);
    return d;
  }

  /**
   * The lowest seq that stays when at most `keep` deliveries remain and none received before
   * `cutoffMs`, or undefined when none stays. Walks only the deliveries that go (oldest first).
   */
  keepFrom(keep: number | undefined, cutoffMs: number | undefined): number | undefined {
    let i = keep === undefined ? 0 : Math.max(0, this.seqs.length - keep);
    if (cutoffMs !== undefined) while (i < this.seqs.length && this.bySeq.get(this.seqs[i]!)!.receivedMs < cutoffMs) i++;
    return this.seqs[i];
  }

  /** Forgets every delivery below `minSeq`; returns how many. */
  dropBelow(minSeq: number): number {
    let cut = 0;
    while (cut < this.seqs.length && this.seqs[cut]! < minSeq) {
      const d = this.bySeq.get(this.seqs[cut]!)!;
      this.count(d, -1);
      this.bySeq.delete(d.seq);
      cut++;
    }
    if (cut) this.seqs = this.seqs.slice(cut);
    return cut;
  }

  *after(since: number, channel?: string): Generator<StoredDelivery> {
    for (let i = this.lowerBound(since + 1); i < this.seqs.length; i++) {
      const d = this.bySeq.get(this.seqs[i]!);
      if (d && (!channel || d.summary.channel === channel)) yield d;
    }
  }

  pending(): StoredDelivery[] {
    return [...this.pendingSeqs].sort((a, b) => a - b).map((s) => this.bySeq.get(s)!);
  }

  list(q: StoreListQuery): RelayDeliverySummary[] {
    const limit = Math.max(0, Math.min(q.limit ?? 100, 10_000));
    const out: RelayDeliverySummary[] = [];
    const start = q.before !== undefined ? this.lowerBound(q.before) - 1 : this.seqs.length - 1;
    for (let i = start; i >= 0 && out.length < limit; i--) {
      const s = this.bySeq.get(this.seqs[i]!)!.summary;
      if (q.since !== undefined && s.seq <= q.since) break;
      if (q.channel && s.channel !== q.channel) continue;
      if (q.status && !(s.verification === q.status || s.forward.some((f) => f.status === q.status))) continue;
      out.push(s);
    }
    return out;
  }

  channels(): ChannelStatus[] {
    return [...this.counts].map(([name, c]) => ({ name, ...c })).sort((a, b) => a.name.localeCompare(b.name));
  }

  private lowerBound(seq: number): number {
    let lo = 0;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seqs[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds (+1) or removes (-1) a delivery's contribution to its channel's counters and the pending set. */
  private count(d: StoredDelivery, sign: 1 | -1): void {
    const s = d.summary;
    let c = this.counts.get(s.channel);
    if (!c) this.counts.set(s.channel, (c = { received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0 }));
    c.received += sign;
    c[s.verification] += sign;
    if (s.forward.length > 0 && s.forward.every((f) => f.status === 'ok')) c.forwarded += sign;
    if (s.forward.some((f) => f.status === 'failed')) c.failed += sign;
    if (s.forward.some((f) => f.status === 'pending')) {
      if (sign > 0) this.pendingSeqs.add(s.seq);
      else this.pendingSeqs.delete(s.seq);
    }
  }
}

/** The ids the summary shows, leaving out the absent ones (as the file store's summaries do). */
function definedIds(pairs: [string, string][]): { event?: string; deliveryId?: string } {
  const { event, deliveryId } = headerIds(pairs);
  return { ...(event !== undefined ? { event } : {}), ...(deliveryId !== undefined ? { deliveryId } : {}) };
}
