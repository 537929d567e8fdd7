// The delivery store over the journal: a compact in-memory index (typed-array rows, counters, a
// pending set) while headers and bodies stay on disk. At open it rebuilds the index from the
// sealed segments' index files and a scan of the current segment only.
import { EventEmitter } from 'node:events';
import { Journal, JournalCorruptError, type CorruptRegion, type JournalFs, type JournalOptions, type RecordLocation } from './journal';
import { nodeFs } from './journalFs';
import { SeqMark } from './seqMark';
import { CompactIndex, type IndexRow } from './compactIndex';
import { T_ATTEMPT, T_DELIVERY, T_PRUNE, attemptFields, stateFields, indexedDelivery, parseMeta, summarize, type AttemptRecord } from './storeRecords';
import { decodeAttempt, decodeDelivery, decodePrune, encodeAttempt, encodeDelivery, encodePrune } from './indexEntries';
import type { ByteReader } from './bytes';
import type { ChannelStatus, ForwardAttempt, ForwardState, RelayDelivery, RelayDeliverySummary } from '../../src/core/relay/protocol';
import type { DeliveryMeta, NewDelivery, PruneOptions, RecordAttemptOptions, RelayStore, StoreEvents, StoreIntegrity, StoreListQuery } from './storeTypes';

export type { DeliveryMeta, RelayStore, StoreEvents, StoredDelivery } from './storeTypes';

/** A delivery as the index gives it out: a summary built for this call, its attempts, where its record is. */
export type Entry = IndexRow;

export interface StoreOptions {
  segmentBytes?: number;
  /** Checkpoint the current segment's index after this many bytes (default 16 MiB). */
  checkpointBytes?: number;
  retention?: { maxCount?: number; maxAgeMs?: number };
  now?: () => number;
  onTruncate?: (info: { segment: number; offset: number; dropped: number }) => void;
  /** Told about damaged records skipped at open (later records are kept). */
  onCorrupt?: (info: CorruptRegion) => void;
  /** Told before a sealed segment without a valid index file is read in full (see JournalOptions.onRebuild). */
  onRebuild?: (info: { segment: number; bytes: number }) => void;
  /** The journal's file operations (tests inject failures); default node:fs. */
  fs?: JournalFs;
  /** Told after each group commit of the journal (the metrics). */
  onSync?: JournalOptions['onSync'];
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
  private readonly index = new CompactIndex();
  private readonly segmentMaxSeq = new Map<number, number>();
  lastSeq = 0;
  private minSeq = 0;
  private readonly now: () => number;
  private truncatedBytes = 0;
  /** Seqs whose record failed its checksum when read (found after open, through an index). */
  private readonly damaged = new Set<number>();
  private journal!: Journal;
  private mark!: SeqMark;

  private constructor(private readonly options: StoreOptions) {
    super();
    this.now = options.now ?? Date.now;
  }

  static async open(dir: string, options: StoreOptions = {}): Promise<DeliveryStore> {
    const store = new DeliveryStore(options);
    store.journal = await Journal.open(dir, {
      segmentBytes: options.segmentBytes,
      checkpointBytes: options.checkpointBytes,
      fs: options.fs,
      onTruncate: (info) => {
        store.truncatedBytes += info.dropped;
        options.onTruncate?.(info);
      },
      onCorrupt: options.onCorrupt,
      onRebuild: options.onRebuild,
      onSync: options.onSync,
      summarize,
      onEntry: (type, entry, loc) => store.apply(type, entry, loc),
    });
    store.mark = await SeqMark.open(dir, options.fs ?? nodeFs);
    // Seqs above the last record may have been given out (its record damaged, or a crash inside
    // a reserved block): the durable mark says how far.
    store.lastSeq = Math.max(store.lastSeq, store.mark.found);
    return store;
  }

  /** Takes one record's index entry at open (decoded straight into the index). */
  private apply(type: number, entry: ByteReader, loc: RecordLocation): void {
    if (type === T_DELIVERY) {
      const d = decodeDelivery(entry, true);
      this.lastSeq = Math.max(this.lastSeq, d.seq);
      if (d.seq < this.minSeq) return;
      this.index.insert(d, loc);
      this.touchSegment(loc.segment, d.seq);
    } else if (type === T_ATTEMPT) {
      const rec = decodeAttempt(entry);
      this.lastSeq = Math.max(this.lastSeq, rec.seq);
      this.touchSegment(loc.segment, rec.seq);
      this.index.applyAttempt(rec.seq, rec.attempt, rec.state);
    } else if (type === T_PRUNE) {
      const minSeq = decodePrune(entry);
      // Every seq below minSeq was given out once (its record may be deleted): never reuse them.
      this.lastSeq = Math.max(this.lastSeq, minSeq - 1);
      this.dropBelow(minSeq);
    }
  }

  /** Remembers the largest seq any record of a segment refers to (a segment is deleted only when all are pruned). */
  private touchSegment(segment: number, seq: number): void {
    this.segmentMaxSeq.set(segment, Math.max(this.segmentMaxSeq.get(segment) ?? 0, seq));
  }

  private dropBelow(minSeq: number): number {
    if (minSeq <= this.minSeq) return 0;
    this.minSeq = minSeq;
    return this.index.dropBelow(minSeq);
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
    const indexed = indexedDelivery(full, metaBuf.length);
    const append = this.journal.append(T_DELIVERY, [len, metaBuf, body], { entry: encodeDelivery(indexed) });
    const durable = Promise.all([append, this.mark.cover(full.seq)]).then(([loc]) => {
      this.index.insert(indexed, loc);
      this.touchSegment(loc.segment, full.seq);
      const entry = this.get(full.seq)!;
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
    const fields = attemptFields(attempt);
    const st = stateFields(state);
    const loc = await this.journal.append(T_ATTEMPT, [Buffer.from(JSON.stringify(rec), 'utf8')], { lazy: options?.lazy, entry: encodeAttempt(seq, fields, st) });
    this.touchSegment(loc.segment, seq);
    this.index.applyAttempt(seq, fields, st);
    this.emit('forward', seq, attempt, state);
  }

  get(seq: number): Entry | undefined {
    const i = this.index.find(seq);
    return i < 0 ? undefined : this.index.row(i);
  }

  forwardState(seq: number, target: string): ForwardState | undefined {
    const i = this.index.find(seq);
    return i < 0 ? undefined : this.index.forwardStateAt(i, target);
  }

  get size(): number {
    return this.index.size;
  }

  /** Entries with seq > since, ascending, optionally one channel. */
  after(since: number, channel?: string): Generator<Entry> {
    return this.index.after(since, channel);
  }

  /** Entries still pending a forward to at least one target, ascending (O(pending)). */
  pending(): Entry[] {
    return this.index.pending();
  }

  /** Newest first; `before` pages back, `since` keeps newer ones. */
  list(q: StoreListQuery): RelayDeliverySummary[] {
    return this.index.list(q);
  }

  /** The stored request: meta (with raw header pairs) and the body bytes, read from disk. */
  async read(seq: number): Promise<{ meta: DeliveryMeta; body: Buffer } | undefined> {
    const e = this.get(seq);
    if (!e) return undefined;
    const payload = await this.journal.read(e.loc).catch((err: unknown) => {
      if (err instanceof JournalCorruptError && !this.damaged.has(seq)) {
        this.damaged.add(seq);
        this.options.onCorrupt?.({ segment: e.loc.segment, offset: e.loc.offset, bytes: e.loc.length });
      }
      throw err;
    });
    const { meta, metaLength } = parseMeta(payload);
    return { meta, body: payload.subarray(4 + metaLength) };
  }

  async detail(seq: number): Promise<RelayDelivery | undefined> {
    const r = await this.read(seq);
    const e = this.get(seq);
    if (!r || !e) return undefined;
    return { ...e.summary, headers: headerRecord(r.meta.headers), bodyBase64: r.body.toString('base64'), attempts: [...e.attempts] };
  }

  /** Per-channel counts, kept as deliveries arrive, are forwarded and are pruned (O(channels)). */
  channels(): ChannelStatus[] {
    return this.index.channelStatus();
  }

  /** The seq that pruning with these options keeps first (deliveries below it go). */
  private pruneFloor(opts: PruneOptions): number {
    let minSeq = this.minSeq;
    const { first, last } = this.index.rows;
    if (opts.keep === 0) minSeq = this.lastSeq + 1;
    else if (opts.keep !== undefined && last - first > opts.keep) minSeq = Math.max(minSeq, this.index.seqAt(last - opts.keep));
    if (opts.olderThanMs !== undefined) {
      const cutoff = this.now() - opts.olderThanMs;
      for (let i = first; i < last && this.index.receivedMsAt(i) < cutoff; i++) minSeq = Math.max(minSeq, this.index.seqAt(i) + 1);
    }
    return minSeq;
  }

  /** Drops the oldest deliveries beyond `keep` or older than `olderThanMs`; deletes whole segments no longer needed. */
  async prune(opts: PruneOptions): Promise<{ removed: number; remaining: number }> {
    const minSeq = this.pruneFloor(opts);
    if (minSeq <= this.minSeq) return { removed: 0, remaining: this.index.size };
    // When nothing in the active segment is kept, seal it so it can be deleted too (the prune
    // record goes to the new one, which stays).
    if ((this.segmentMaxSeq.get(this.journal.currentSegment) ?? 0) < minSeq && this.journal.currentSize > 0) await this.journal.rotate();
    await this.journal.append(T_PRUNE, [Buffer.from(JSON.stringify({ minSeq }), 'utf8')], { entry: encodePrune(minSeq) });
    const removed = this.dropBelow(minSeq);
    const gone = await this.journal.removeSegments((seg) => (this.segmentMaxSeq.get(seg) ?? 0) < minSeq);
    for (const seg of gone) this.segmentMaxSeq.delete(seg);
    return { removed, remaining: this.index.size };
  }

  /** Applies the configured retention (count and age). */
  async applyRetention(): Promise<void> {
    const r = this.options.retention;
    if (!r) return;
    if (r.maxCount !== undefined || r.maxAgeMs !== undefined) await this.prune({ keep: r.maxCount, olderThanMs: r.maxAgeMs });
  }

  /**
   * Damage found: records skipped at open (segments scanned), records that failed their checksum
   * when read (segments read through their index), bytes cut as torn tails.
   */
  integrity(): StoreIntegrity {
    const c = this.journal.corruption;
    let damagedBytes = 0;
    for (const seq of this.damaged) damagedBytes += this.get(seq)?.loc.length ?? 0;
    return { corruptRecords: c.regions + this.damaged.size, corruptBytes: c.bytes + damagedBytes, truncatedBytes: this.truncatedBytes };
  }

  /** Lets go of the files without a clean stop (no checkpoint, no exact seq mark): a kill, for tests. */
  async release(): Promise<void> {
    await this.journal.release();
    await this.mark.release();
  }

  async close(): Promise<void> {
    try {
      await this.journal.close();
    } finally {
      await this.mark.close(this.lastSeq);
    }
  }
}
