// The delivery store over the journal: a compact in-memory index (typed-array rows, counters, a
// pending set) while headers and bodies stay on disk. At open it rebuilds the index from the
// sealed segments' index files and a scan of the current segment only.
import { EventEmitter } from 'node:events';
import { Journal, JournalCorruptError, type TruncatedTail, type CorruptRegion, type JournalFs, type JournalOptions, type RecordLocation } from './journal';
import { nodeFs } from './journalFs';
import { join } from 'node:path';
import { SeqMark, SEQ_FILE } from './seqMark';
import { lostRanges, rememberLoss, rangeCount, describeRanges, type SeqRange, type SegmentSeqs } from './journalLoss';
import { CompactIndex, type IndexRow } from './compactIndex';
import { REJECTED_KEEP } from './rejected';
import { T_ATTEMPT_ENTRY, isAttempt, T_DELIVERY, T_DROP_REJECTED, T_PRUNE, attemptFields, stateFields, decodeMeta, deliveryRecord, parseMeta, summarize } from './storeRecords';
import { decodeAttempt, decodeDelivery, decodePrune, encodeAttempt, encodePrune } from './indexEntries';
import type { ByteReader } from './bytes';
import type { ForwardAttempt, ForwardState, RelayDelivery, RelayDeliverySummary } from '../../src/core/relay/protocol';
import type { BodyReader, DeliveryMeta, KeyedChannelStatus, NewDelivery, StoreHealth, PruneOptions, RecordAttemptOptions, RelayStore, StoreEvents, StoreIntegrity, StoreListQuery } from './storeTypes';

export type { DeliveryMeta, RelayStore, StoreEvents, StoredDelivery } from './storeTypes';

/** A delivery as the index gives it out: a summary built for this call, its attempts, where its record is. */
export type Entry = IndexRow;

export interface StoreOptions {
  segmentBytes?: number;
  /** Checkpoint the current segment's index after this many bytes (default 16 MiB). */
  checkpointBytes?: number;
  /**
   * maxCount: accepted (verified or unverified) deliveries kept; maxRejected: rejected ones kept,
   * apart (default REJECTED_KEEP), so rejected traffic never pushes out an accepted delivery.
   */
  retention?: { maxCount?: number; maxAgeMs?: number; maxRejected?: number };
  now?: () => number;
  onTruncate?: (info: TruncatedTail) => void;
  /** Told at open about acknowledged deliveries lost (a sealed segment cut short, a segment deleted). */
  onLoss?: (ranges: SeqRange[]) => void;
  /** Told about damaged records skipped at open (later records are kept). */
  onCorrupt?: (info: CorruptRegion) => void;
  /** Told before a sealed segment without a valid index file is read in full (see JournalOptions.onRebuild). */
  onRebuild?: (info: { segment: number; bytes: number }) => void;
  /** The journal's file operations (tests inject failures); default node:fs. */
  fs?: JournalFs;
  /** Told when a write fails after the last one succeeded (`fatal`: the journal refuses every later one), and when writes work again. */
  onWriteError?: (err: Error | undefined, fatal: boolean) => void;
  /** Told about writes the journal worked around (a segment or index file it could not create). */
  onProblem?: (line: string) => void;
  /** Told when the seq file did not check out at open. */
  onSeqDamaged?: (info: { path: string; resumedAt: number }) => void;
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
  /** The largest rejected delivery seq of each segment (those go with their own retention). */
  private readonly segmentMaxRejected = new Map<number, number>();
  /** Rejected deliveries up to this seq are gone (T_DROP_REJECTED). */
  private rejectedUpTo = 0;
  lastSeq = 0;
  private minSeq = 0;
  private readonly now: () => number;
  private truncatedBytes = 0;
  /** Seqs whose record failed its checksum when read (found after open, through an index). */
  private readonly damaged = new Set<number>();
  private journal!: Journal;
  private mark!: SeqMark;
  /** The last failed write, until a write succeeds again. */
  private writeError: Error | undefined;
  private fatalTold = false;
  /** Acknowledged deliveries found lost at open (./journalLoss.ts). */
  private lost: SeqRange[] = [];
  /** While opening: the delivery seqs of each segment. */
  private loading: Map<number, SegmentSeqs> | undefined;

  private constructor(private readonly options: StoreOptions) {
    super();
    this.now = options.now ?? Date.now;
  }

  static async open(dir: string, options: StoreOptions = {}): Promise<DeliveryStore> {
    const store = new DeliveryStore(options);
    const cut = new Set<number>();
    const deliveries = new Map<number, SegmentSeqs>();
    store.loading = deliveries;
    store.index.deferPendingSet();
    store.journal = await Journal.open(dir, {
      segmentBytes: options.segmentBytes,
      checkpointBytes: options.checkpointBytes,
      fs: options.fs,
      onTruncate: (info) => {
        store.truncatedBytes += info.dropped;
        if (info.sealed) cut.add(info.segment);
        options.onTruncate?.(info);
      },
      onCorrupt: options.onCorrupt,
      onRebuild: (info) => {
        cut.add(info.segment); // a sealed segment without its index: maybe cut at a record boundary
        options.onRebuild?.(info);
      },
      onProblem: options.onProblem,
      onSync: options.onSync,
      summarize,
      onEntry: (type, entry, loc) => store.apply(type, entry, loc),
    });
    store.loading = undefined;
    store.index.buildPendingSet();
    store.lost = rememberLoss(dir, lostRanges({ segments: store.journal.segments, deliveries, cut, minSeq: store.minSeq, rejectedUpTo: store.rejectedUpTo }), store.minSeq);
    if (store.lost.length > 0) options.onLoss?.(store.lost);
    store.mark = await SeqMark.open(dir, options.fs ?? nodeFs);
    // Seqs above the last record may have been given out (its record damaged, or a crash inside
    // a reserved block): the durable mark says how far.
    store.lastSeq = Math.max(store.lastSeq, store.mark.found);
    if (store.mark.damaged) options.onSeqDamaged?.({ path: join(dir, SEQ_FILE), resumedAt: store.lastSeq });
    return store;
  }

  /** Takes one record's index entry at open (decoded straight into the index). */
  private apply(type: number, entry: ByteReader, loc: RecordLocation): void {
    if (type === T_DELIVERY) {
      const d = decodeDelivery(entry, true);
      this.lastSeq = Math.max(this.lastSeq, d.seq);
      const seqs = this.loading?.get(loc.segment);
      if (seqs) seqs.maxSeq = d.seq;
      else this.loading?.set(loc.segment, { minSeq: d.seq, maxSeq: d.seq });
      if (d.seq < this.minSeq) return;
      this.index.insert(d, loc);
      this.touchDelivery(loc.segment, d.seq, d.verification === 'rejected');
    } else if (isAttempt(type)) {
      const rec = decodeAttempt(entry);
      this.lastSeq = Math.max(this.lastSeq, rec.seq);
      this.touchSegment(loc.segment, rec.seq);
      this.index.applyAttempt(rec.seq, rec.attempt, rec.state);
    } else if (type === T_PRUNE) {
      const minSeq = decodePrune(entry);
      // Every seq below minSeq was given out once (its record may be deleted): never reuse them.
      this.lastSeq = Math.max(this.lastSeq, minSeq - 1);
      this.dropBelow(minSeq);
    } else if (type === T_DROP_REJECTED) {
      const upTo = decodePrune(entry);
      this.touchSegment(loc.segment, upTo); // kept while rejected records up to it may remain elsewhere
      this.rejectedUpTo = Math.max(this.rejectedUpTo, upTo);
      this.index.hideRejectedUpTo(upTo);
    }
  }

  private touchDelivery(segment: number, seq: number, rejected: boolean): void {
    if (!rejected) return this.touchSegment(segment, seq);
    this.segmentMaxRejected.set(segment, Math.max(this.segmentMaxRejected.get(segment) ?? 0, seq));
  }

  /** Whether nothing in `segment` is kept with the prune floor `minSeq`. */
  private unneeded(segment: number, minSeq: number): boolean {
    return (this.segmentMaxSeq.get(segment) ?? 0) < minSeq && (this.segmentMaxRejected.get(segment) ?? 0) < Math.max(minSeq, this.rejectedUpTo + 1);
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
    const seq = ++this.lastSeq;
    // Whole milliseconds, as the earlier ISO 8601 receivedAt kept them.
    const { head, indexed, entry: indexEntry } = deliveryRecord(seq, Math.trunc(this.now()), meta);
    const append = this.journal.append(T_DELIVERY, [head, body], { entry: indexEntry });
    const durable = Promise.all([append, this.mark.cover(seq)]).then(([loc]) => {
      this.wrote();
      this.index.insert(indexed, loc);
      this.touchDelivery(loc.segment, seq, meta.verification === 'rejected');
      const entry = this.get(seq)!;
      this.emit('delivery', entry);
      return entry;
    }, (err: Error) => this.writeFailed(err));
    return { seq, durable };
  }

  /** Remembers a failed delivery write (readiness), telling the first of a run, and the fatal one once. */
  private writeFailed(err: Error): never {
    const fatal = this.journal.failed !== undefined;
    if (!this.writeError || (fatal && !this.fatalTold)) this.options.onWriteError?.(err, fatal);
    this.fatalTold ||= fatal;
    this.writeError = err;
    throw err;
  }

  private wrote(): void {
    if (!this.writeError) return;
    this.writeError = undefined;
    this.options.onWriteError?.(undefined, false);
  }

  health(): StoreHealth {
    const failed = this.journal.failed;
    if (failed) return { notReady: failed.message, fatal: true };
    // (lost deliveries: a warning; a restart brings nothing back)
    const warning = this.lost.length > 0 ? `journal: ${rangeCount(this.lost)} acknowledged deliveries lost: ${describeRanges(this.lost)}` : undefined;
    const warn = warning ? { warning } : {};
    if (this.writeError) return { notReady: `the last journal write failed: ${this.writeError.message}`, ...warn };
    return warn;
  }

  /**
   * Journals one forward attempt (durably) and updates the index once it is on disk. `lazy`: the
   * record starts no fdatasync of its own but rides on the next delivery's (within the journal's
   * lazyMs), so a forward costs no sync beyond its delivery's.
   */
  async recordAttempt(seq: number, attempt: ForwardAttempt, state?: ForwardState, options?: RecordAttemptOptions): Promise<void> {
    const fields = attemptFields(attempt);
    const st = stateFields(state);
    const entry = encodeAttempt(seq, fields, st);
    const loc = await this.journal.append(T_ATTEMPT_ENTRY, [entry], { lazy: options?.lazy, entry });
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

  lastSeqOf(key: string): number {
    return this.index.lastSeqOf(key);
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
    const payload = await this.journal.read(e.loc).catch((err: unknown) => this.noteDamage(e, err));
    const { meta, metaLength } = parseMeta(payload);
    return { meta, body: payload.subarray(4 + metaLength) };
  }

  /**
   * The stored request with its body read from disk part by part as asked for (a large body goes
   * to a subscriber without being held whole); the checksum is checked with the last part.
   */
  async openBody(seq: number): Promise<BodyReader | undefined> {
    const e = this.get(seq);
    if (!e) return undefined;
    if (this.damaged.has(seq)) throw new JournalCorruptError(e.loc.segment, e.loc.offset, 'damaged record');
    const record = await this.journal.openRecord(e.loc).catch((err: unknown) => this.noteDamage(e, err));
    const next = (max: number) => record.next(max).catch((err: unknown) => this.noteDamage(e, err));
    const metaLength = (await next(4)).readUInt32LE(0);
    const meta = decodeMeta(await next(metaLength));
    return { meta, size: record.remaining, next };
  }

  /** A read found the record damaged: told once per seq, then rethrown. */
  private noteDamage(e: Entry, err: unknown): never {
    if (err instanceof JournalCorruptError && !this.damaged.has(e.seq)) {
      this.damaged.add(e.seq);
      this.options.onCorrupt?.({ segment: e.loc.segment, offset: e.loc.offset, bytes: e.loc.length });
    }
    throw err;
  }

  async detail(seq: number): Promise<RelayDelivery | undefined> {
    const r = await this.read(seq);
    const e = this.get(seq);
    if (!r || !e) return undefined;
    return { ...e.summary, headers: headerRecord(r.meta.headers), bodyBase64: r.body.toString('base64'), attempts: [...e.attempts] };
  }

  /** Per-channel counts, kept as deliveries arrive, are forwarded and are pruned (O(channels)). */
  channels(): KeyedChannelStatus[] {
    return this.index.channelStatus();
  }

  /** The seq that pruning with these options keeps first (deliveries below it go). */
  private pruneFloor(opts: PruneOptions): number {
    let minSeq = this.minSeq;
    const { first, last } = this.index.rows;
    if (opts.keep === 0) minSeq = this.lastSeq + 1;
    // `keep` counts accepted deliveries only: rejected ones have their own retention (dropRejected).
    else if (opts.keep !== undefined) minSeq = Math.max(minSeq, this.index.floorKeeping(opts.keep, false) + 1);
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
    if (this.unneeded(this.journal.currentSegment, minSeq) && this.journal.currentSize > 0) await this.journal.rotate();
    await this.journal.append(T_PRUNE, [Buffer.from(JSON.stringify({ minSeq }), 'utf8')], { entry: encodePrune(minSeq) });
    const removed = this.dropBelow(minSeq);
    await this.removeSegments(minSeq);
    return { removed, remaining: this.index.size };
  }

  private async removeSegments(minSeq: number): Promise<void> {
    const gone = await this.journal.removeSegments((seg) => this.unneeded(seg, minSeq));
    for (const seg of gone) {
      this.segmentMaxSeq.delete(seg);
      this.segmentMaxRejected.delete(seg);
    }
  }

  /** Keeps the newest `keep` rejected deliveries; older ones leave every list and count, and their segments go once nothing else in them is kept. */
  async dropRejected(keep: number): Promise<number> {
    const upTo = this.index.floorKeeping(keep, true);
    if (upTo <= this.rejectedUpTo) return 0;
    const before = this.index.size;
    const loc = await this.journal.append(T_DROP_REJECTED, [Buffer.from(JSON.stringify({ upTo }), 'utf8')], { entry: encodePrune(upTo) });
    this.touchSegment(loc.segment, upTo);
    this.rejectedUpTo = upTo;
    this.index.hideRejectedUpTo(upTo);
    await this.removeSegments(this.minSeq);
    return before - this.index.size;
  }

  /** Applies the configured retention (count and age). */
  async applyRetention(): Promise<void> {
    const r = this.options.retention;
    if (!r) return;
    if (r.maxCount !== undefined || r.maxAgeMs !== undefined) await this.prune({ keep: r.maxCount, olderThanMs: r.maxAgeMs });
    await this.dropRejected(r.maxRejected ?? REJECTED_KEEP);
  }

  /**
   * Damage found: records skipped at open (segments scanned), records that failed their checksum
   * when read (segments read through their index), bytes cut as torn tails.
   */
  integrity(): StoreIntegrity {
    const c = this.journal.corruption;
    let damagedBytes = 0;
    for (const seq of this.damaged) damagedBytes += this.get(seq)?.loc.length ?? 0;
    return { corruptRecords: c.regions + this.damaged.size, corruptBytes: c.bytes + damagedBytes, truncatedBytes: this.truncatedBytes,
      ...(this.mark.damaged ? { seqFileDamaged: true } : {}),
      ...(this.lost.length > 0 ? { lostDeliveries: rangeCount(this.lost), lost: describeRanges(this.lost) } : {}),
    };
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
