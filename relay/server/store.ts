// The delivery store over the journal: a small in-memory index (summaries, record locations,
// attempts) while headers and bodies stay on disk. Recovers its index from the journal at open.
import { EventEmitter } from 'node:events';
import { sizeFields } from './rejected';
import { Journal, type CorruptRegion, type JournalFs, type RecordLocation } from './journal';
import { nodeFs } from './journalFs';
import { SeqMark } from './seqMark';
import { DELIVERY_HEADER, EVENT_HEADER } from '../../src/core/signing';
import type { ChannelStatus, ForwardAttempt, ForwardState, ForwardStatus, RelayDelivery, RelayDeliverySummary } from '../../src/core/relay/protocol';
import type {
  DeliveryMeta,
  NewDelivery,
  PruneOptions,
  RecordAttemptOptions,
  RelayStore,
  StoreEvents,
  StoreIntegrity,
  StoredDelivery,
  StoreListQuery,
} from './storeTypes';

export type { DeliveryMeta, RelayStore, StoreEvents, StoredDelivery } from './storeTypes';

const EVENT_NAME = EVENT_HEADER.toLowerCase();
const DELIVERY_NAME = DELIVERY_HEADER.toLowerCase();

const T_DELIVERY = 1;
const T_ATTEMPT = 2;
const T_PRUNE = 3;

export interface Entry extends StoredDelivery {
  loc: RecordLocation;
  metaLength: number;
}

interface AttemptRecord {
  seq: number;
  attempt: ForwardAttempt;
  /** New state of the target (absent for replays to another URL). */
  state?: ForwardState;
}

export interface StoreOptions {
  segmentBytes?: number;
  retention?: { maxCount?: number; maxAgeMs?: number };
  now?: () => number;
  onTruncate?: (info: { segment: number; offset: number; dropped: number }) => void;
  /** Told about damaged records skipped at open (later records are kept). */
  onCorrupt?: (info: CorruptRegion) => void;
  /** The journal's file operations (tests inject failures); default node:fs. */
  fs?: JournalFs;
}

export function headerRecord(pairs: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) {
    const n = k.toLowerCase();
    out[n] = n in out ? `${out[n]}, ${v}` : v;
  }
  return out;
}

export class DeliveryStore extends EventEmitter<StoreEvents> implements RelayStore {
  private readonly index = new Map<number, Entry>();
  /** Seqs in ascending order (parallel to index insertion). */
  private seqs: number[] = [];
  private readonly segmentMaxSeq = new Map<number, number>();
  lastSeq = 0;
  private minSeq = 0;
  private readonly now: () => number;
  private truncatedBytes = 0;

  private constructor(
    readonly journal: Journal,
    private readonly mark: SeqMark,
    private readonly options: StoreOptions,
  ) {
    super();
    this.now = options.now ?? Date.now;
  }

  static async open(dir: string, options: StoreOptions = {}): Promise<DeliveryStore> {
    const pending: { type: number; payload: Buffer; loc: RecordLocation }[] = [];
    let truncated = 0;
    const journal = await Journal.open(dir, {
      segmentBytes: options.segmentBytes,
      fs: options.fs,
      onTruncate: (info) => {
        truncated += info.dropped;
        options.onTruncate?.(info);
      },
      onCorrupt: options.onCorrupt,
      onRecord: (type, payload, loc) => {
        // Keep only what the index needs: for deliveries, the metadata, not the body.
        if (type === T_DELIVERY) {
          const metaLength = payload.readUInt32LE(0);
          pending.push({ type, payload: Buffer.from(payload.subarray(0, 4 + metaLength)), loc });
        } else pending.push({ type, payload, loc });
      },
    });
    const mark = await SeqMark.open(dir, options.fs ?? nodeFs);
    const store = new DeliveryStore(journal, mark, options);
    store.truncatedBytes = truncated;
    for (const r of pending) store.apply(r.type, r.payload, r.loc);
    // Seqs above the last record may have been given out (its record damaged, or a crash inside
    // a reserved block): the durable mark says how far.
    store.lastSeq = Math.max(store.lastSeq, mark.found);
    return store;
  }

  private apply(type: number, payload: Buffer, loc: RecordLocation): void {
    if (type === T_DELIVERY) {
      const metaLength = payload.readUInt32LE(0);
      const meta = JSON.parse(payload.subarray(4, 4 + metaLength).toString('utf8')) as DeliveryMeta;
      this.lastSeq = Math.max(this.lastSeq, meta.seq);
      if (meta.seq < this.minSeq) return;
      this.insert(meta, loc, metaLength);
    } else if (type === T_ATTEMPT) {
      const rec = JSON.parse(payload.toString('utf8')) as AttemptRecord;
      this.lastSeq = Math.max(this.lastSeq, rec.seq);
      this.touchSegment(loc.segment, rec.seq);
      this.applyAttempt(rec);
    } else if (type === T_PRUNE) {
      const { minSeq } = JSON.parse(payload.toString('utf8')) as { minSeq: number };
      // Every seq below minSeq was given out once (its record may be deleted): never reuse them.
      this.lastSeq = Math.max(this.lastSeq, minSeq - 1);
      this.dropBelow(minSeq);
    }
  }

  private insert(meta: DeliveryMeta, loc: RecordLocation, metaLength: number): Entry {
    let event: string | undefined;
    let deliveryId: string | undefined;
    for (const [k, v] of meta.headers) {
      // One pass, lower-casing only names of the right length (the first of each wins).
      if (k.length === EVENT_NAME.length && event === undefined && k.toLowerCase() === EVENT_NAME) event = v;
      else if (k.length === DELIVERY_NAME.length && deliveryId === undefined && k.toLowerCase() === DELIVERY_NAME) deliveryId = v;
    }
    const summary: RelayDeliverySummary = {
      seq: meta.seq,
      channel: meta.channel,
      receivedAt: meta.receivedAt,
      verification: meta.verification,
      ...(meta.reason ? { reason: meta.reason } : {}),
      event,
      deliveryId,
      ...sizeFields(meta, loc.length - 4 - metaLength),
      forward: meta.verification === 'rejected' ? [] : meta.targets.map((target) => ({ target, status: 'pending' as ForwardStatus, attempts: 0 })),
    };
    const entry: Entry = { summary, loc, metaLength, receivedMs: Date.parse(meta.receivedAt), attempts: [] };
    this.index.set(meta.seq, entry);
    this.seqs.push(meta.seq);
    this.touchSegment(loc.segment, meta.seq);
    return entry;
  }

  /** Remembers the largest seq any record of a segment refers to (a segment is deleted only when all are pruned). */
  private touchSegment(segment: number, seq: number): void {
    this.segmentMaxSeq.set(segment, Math.max(this.segmentMaxSeq.get(segment) ?? 0, seq));
  }

  private applyAttempt(rec: AttemptRecord): Entry | undefined {
    const entry = this.index.get(rec.seq);
    if (!entry) return undefined;
    entry.attempts.push(rec.attempt);
    if (rec.state) {
      const i = entry.summary.forward.findIndex((f) => f.target === rec.state!.target);
      if (i >= 0) entry.summary.forward[i] = rec.state;
    }
    return entry;
  }

  private dropBelow(minSeq: number): number {
    if (minSeq <= this.minSeq) return 0;
    this.minSeq = minSeq;
    let cut = 0;
    while (cut < this.seqs.length && this.seqs[cut]! < minSeq) this.index.delete(this.seqs[cut++]!);
    this.seqs = this.seqs.slice(cut);
    return cut;
  }

  /** Journals a received delivery; resolves once it is durable. Seqs are assigned in call order. */
  add(meta: NewDelivery, body: Buffer): Promise<Entry> {
    return this.begin(meta, body).durable;
  }

  /** Like add(), but returns the seq at once, with the promise of durability. */
  begin(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<Entry> } {
    const full: DeliveryMeta = { seq: ++this.lastSeq, receivedAt: new Date(this.now()).toISOString(), ...meta };
    const metaBuf = Buffer.from(JSON.stringify(full), 'utf8');
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32LE(metaBuf.length, 0);
    const written = Promise.all([this.journal.append(T_DELIVERY, [len, metaBuf, body]), this.mark.cover(full.seq)]);
    const durable = written.then(([loc]) => {
      const entry = this.insert(full, loc, metaBuf.length);
      this.emit('delivery', entry);
      return entry;
    });
    return { seq: full.seq, durable };
  }

  /**
   * Journals one forward attempt (durably) and updates the index once it is on disk. `lazy`: the
   * record starts no fdatasync of its own but rides on the next delivery's (within the journal's
   * lazyMs), so a forward costs no sync beyond its delivery's.
   */
  async recordAttempt(seq: number, attempt: ForwardAttempt, state?: ForwardState, options?: RecordAttemptOptions): Promise<void> {
    const rec: AttemptRecord = { seq, attempt, ...(state ? { state } : {}) };
    const loc = await this.journal.append(T_ATTEMPT, [Buffer.from(JSON.stringify(rec), 'utf8')], options);
    this.touchSegment(loc.segment, seq);
    this.applyAttempt(rec);
    this.emit('forward', seq, attempt, state);
  }

  get(seq: number): Entry | undefined {
    return this.index.get(seq);
  }

  get size(): number {
    return this.index.size;
  }

  /** Entries with seq > since, ascending, optionally one channel; stops after `limit`. */
  *after(since: number, channel?: string): Generator<Entry> {
    let lo = 0;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seqs[mid]! <= since) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.seqs.length; i++) {
      const e = this.index.get(this.seqs[i]!);
      if (e && (!channel || e.summary.channel === channel)) yield e;
    }
  }

  /** Entries still pending a forward to at least one target. */
  pending(): Entry[] {
    const out: Entry[] = [];
    for (const e of this.index.values()) if (e.summary.forward.some((f) => f.status === 'pending')) out.push(e);
    return out;
  }

  list(q: StoreListQuery): RelayDeliverySummary[] {
    const limit = Math.max(1, Math.min(q.limit ?? 100, 10_000));
    const out: RelayDeliverySummary[] = [];
    for (let i = this.seqs.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.index.get(this.seqs[i]!)!;
      const s = e.summary;
      if (q.since !== undefined && s.seq <= q.since) break;
      if (q.before !== undefined && s.seq >= q.before) continue;
      if (q.channel && s.channel !== q.channel) continue;
      if (q.status && !matchesStatus(s, q.status)) continue;
      out.push(s);
    }
    return out;
  }

  /** The stored request: meta (with raw header pairs) and the body bytes, read from disk. */
  async read(seq: number): Promise<{ meta: DeliveryMeta; body: Buffer } | undefined> {
    const e = this.index.get(seq);
    if (!e) return undefined;
    const payload = await this.journal.read(e.loc);
    const meta = JSON.parse(payload.subarray(4, 4 + e.metaLength).toString('utf8')) as DeliveryMeta;
    return { meta, body: payload.subarray(4 + e.metaLength) };
  }

  async detail(seq: number): Promise<RelayDelivery | undefined> {
    const r = await this.read(seq);
    const e = this.index.get(seq);
    if (!r || !e) return undefined;
    return { ...e.summary, headers: headerRecord(r.meta.headers), bodyBase64: r.body.toString('base64'), attempts: [...e.attempts] };
  }

  channels(): ChannelStatus[] {
    const by = new Map<string, ChannelStatus>();
    for (const e of this.index.values()) {
      const s = e.summary;
      let c = by.get(s.channel);
      if (!c) by.set(s.channel, (c = { name: s.channel, received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0 }));
      c.received++;
      c[s.verification]++;
      if (s.forward.length > 0 && s.forward.every((f) => f.status === 'ok')) c.forwarded++;
      if (s.forward.some((f) => f.status === 'failed')) c.failed++;
    }
    return [...by.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Drops the oldest deliveries beyond `keep` or older than `olderThanMs`; deletes whole segments no longer needed. */
  async prune(opts: PruneOptions): Promise<{ removed: number; remaining: number }> {
    let minSeq = this.minSeq;
    if (opts.keep !== undefined && this.seqs.length > opts.keep) minSeq = Math.max(minSeq, this.seqs[this.seqs.length - opts.keep]!);
    if (opts.keep === 0) minSeq = this.lastSeq + 1;
    if (opts.olderThanMs !== undefined) {
      const cutoff = this.now() - opts.olderThanMs;
      for (const s of this.seqs) {
        if (this.index.get(s)!.receivedMs >= cutoff) break;
        minSeq = Math.max(minSeq, s + 1);
      }
    }
    if (minSeq <= this.minSeq) return { removed: 0, remaining: this.index.size };
    // When nothing in the active segment is kept, seal it so it can be deleted too (the prune
    // record goes to the new one, which stays).
    if ((this.segmentMaxSeq.get(this.journal.currentSegment) ?? 0) < minSeq && this.journal.currentSize > 0) await this.journal.rotate();
    await this.journal.append(T_PRUNE, [Buffer.from(JSON.stringify({ minSeq }), 'utf8')]);
    const removed = this.dropBelow(minSeq);
    await this.journal.removeSegments((seg) => (this.segmentMaxSeq.get(seg) ?? 0) < minSeq);
    return { removed, remaining: this.index.size };
  }

  /** Applies the configured retention (count and age). */
  async applyRetention(): Promise<void> {
    const r = this.options.retention;
    if (!r) return;
    if (r.maxCount !== undefined || r.maxAgeMs !== undefined) await this.prune({ keep: r.maxCount, olderThanMs: r.maxAgeMs });
  }

  /** What the journal found damaged at open: records skipped in the middle, bytes cut as torn tails. */
  integrity(): StoreIntegrity {
    const c = this.journal.corruption;
    return { corruptRecords: c.regions, corruptBytes: c.bytes, truncatedBytes: this.truncatedBytes };
  }

  async close(): Promise<void> {
    try {
      await this.journal.close();
    } finally {
      await this.mark.close(this.lastSeq);
    }
  }
}

function matchesStatus(s: RelayDeliverySummary, status: string): boolean {
  if (status === 'verified' || status === 'unverified' || status === 'rejected') return s.verification === status;
  if (status === 'pending' || status === 'failed') return s.forward.some((f) => f.status === status);
  if (status === 'ok') return s.forward.length > 0 && s.forward.every((f) => f.status === 'ok');
  return false;
}
