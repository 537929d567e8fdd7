// The file journal as a DeliveryLog (./deliveryLog.ts): delivery and attempt records in segment
// files (../journal/journal.ts), read back by their location, a durable seq mark
// (../journal/seqMark.ts), segments deleted once nothing in them is kept. At open it feeds the
// index from the sealed segments' index files and a scan of the current segment only. The index
// and the queries over it are LogStore's (./logStore.ts).
import { join } from 'node:path';
import {
  Journal,
  JournalCorruptError,
  type CorruptRegion,
  type JournalFs,
  type JournalOptions,
  type RecordLocation,
  type TruncatedTail,
} from '../journal/journal';
import { nodeFs } from '../journal/journalFs';
import { SeqMark, SEQ_FILE } from '../journal/seqMark';
import { lostRanges, rememberLoss, rangeCount, describeRanges, type SeqRange, type SegmentSeqs } from '../journal/journalLoss';
import {
  T_ATTEMPT_ENTRY,
  isAttempt,
  T_DELIVERY,
  T_DROP_REJECTED,
  T_PRUNE,
  attemptFields,
  stateFields,
  decodeMeta,
  deliveryRecord,
  parseMeta,
  summarize,
} from './storeRecords';
import { decodeAttemptInto, decodeDelivery, decodePrune, encodeAttempt, encodePrune, entrySeq } from '../deliveryIndex/indexEntries';
import type { ByteReader } from '../base/bytes';
import type { AttemptFields, IndexRow, StateFields } from '../deliveryIndex/compactIndex';
import type { AttemptToRecord, DeliveryLog, LogSink, ReadRecord } from './deliveryLog';
import type { JournalPosition } from '../journal/snapshotFile';
import { SnapshotKeeper, type LogFields, type Restored, type SnapshotOptions } from './journalSnapshot';
import type { BodyReader, DeliveryMeta, NewDelivery, RecordAttemptOptions, StoreHealth, StoreIntegrity } from '../base/storeTypes';

export interface JournalLogOptions {
  segmentBytes?: number;
  /** Checkpoint the current segment's index after this many bytes (default 16 MiB). */
  checkpointBytes?: number;
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
  /** When the index snapshot is written (./journalSnapshot.ts); false: never (none is read either). */
  snapshot?: SnapshotOptions | false;
}

export class JournalLog implements DeliveryLog {
  readonly kind = 'file';
  private sink!: LogSink;
  private readonly segmentMaxSeq = new Map<number, number>();
  /** The largest rejected delivery seq of each segment (those go with their own retention). */
  private readonly segmentMaxRejected = new Map<number, number>();
  /** Rejected deliveries up to this seq are gone (T_DROP_REJECTED). */
  private rejectedUpTo = 0;
  lastSeq = 0;
  private minSeq = 0;
  private readonly now: () => number;
  private truncatedBytes = 0;
  /** Seqs whose record failed its checksum when read (found after open, through an index), and their record's bytes. */
  private readonly damaged = new Map<number, number>();
  private journal!: Journal;
  private mark!: SeqMark;
  /** The last failed write, until a write succeeds again. */
  private writeError: Error | undefined;
  private fatalTold = false;
  /** Acknowledged deliveries found lost at open (./journalLoss.ts). */
  private lost: SeqRange[] = [];
  /** Attempt entries are decoded into this at open (LogSink.attemptFields copies what it keeps). */
  private readonly scratch = {
    seq: 0,
    attempt: { target: '', atMs: 0, ok: false, durationMs: 0 } as AttemptFields,
    state: { target: '', status: 'pending', attempts: 0 } as StateFields,
    hasState: false,
  };
  /** The delivery seqs of each segment (for the loss check at open, and the index snapshot). */
  private readonly segmentSeqs = new Map<number, SegmentSeqs>();
  /** Damaged regions reported at open per segment, and those an index snapshot counted for segments not read. */
  private readonly corruptBySegment = new Map<number, [offset: number, bytes: number][]>();
  private readonly restoredCorrupt = { regions: 0, bytes: 0 };
  /** Where openTail() found damage in the last segment. */
  private readonly tailDamage: number[] = [];
  private loadingRest = false;
  private readonly snapshots: SnapshotKeeper;
  /** Sealed segments cut short (or read in full) at open. */
  private readonly cut = new Set<number>();
  /** The segments there at open (those a loss is looked for in). */
  private segmentsAtOpen: number[] = [];
  /** Where the index snapshot this open restored was taken (undefined: none was used). */
  snapshotUsed: JournalPosition | undefined;
  /** Between openTail() and the end of loadRest(): the sink calls of records appended meanwhile, in order. */
  private deferred: (() => void)[] | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: JournalLogOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.snapshots = new SnapshotKeeper(
      {
        fs: options.fs ?? nodeFs,
        dir,
        journal: () => ({ segments: this.journal.segments, segment: this.journal.currentSegment, size: this.journal.currentSize }),
        damageBefore: (at) => (at.segment === this.segmentsAtOpen.at(-1) ? this.tailDamage.filter((offset) => offset < at.offset).length : undefined),
        fields: () => this.fields(),
        sink: () => this.sink,
        problem: (line) => options.onProblem?.(line),
      },
      options.snapshot,
    );
  }

  async open(sink: LogSink): Promise<void> {
    await this.openTail(sink);
    await this.loadRest();
  }

  /**
   * Opens the journal for appends after reading its last segment and the seq mark only: new
   * deliveries follow the last seq given out. Their records reach the sink once loadRest() has
   * fed everything the journal held before them (each once, in order). With a damaged seq mark
   * the last segment may not tell the last seq: everything is loaded first.
   */
  async openTail(sink: LogSink): Promise<void> {
    const { dir, options } = this;
    this.sink = sink;
    this.deferred = [];
    if (options.snapshot !== false) this.snapshots.readAhead(); // while the tail is read
    this.journal = await Journal.openTail(dir, {
      segmentBytes: options.segmentBytes,
      checkpointBytes: options.checkpointBytes,
      fs: options.fs,
      onTruncate: (info) => {
        this.truncatedBytes += info.dropped;
        if (info.sealed) this.cut.add(info.segment);
        options.onTruncate?.(info);
      },
      onCorrupt: (info) => {
        if (!this.loadingRest) this.tailDamage.push(info.offset);
        this.noteCorrupt(info);
      },
      onRebuild: (info) => {
        this.cut.add(info.segment); // a sealed segment without its index: maybe cut at a record boundary
        options.onRebuild?.(info);
      },
      onProblem: options.onProblem,
      onSync: options.onSync,
      summarize,
      onEntry: (type, entry, loc) => this.apply(type, entry, loc),
      onTailEntry: (type, entry) => (this.lastSeq = Math.max(this.lastSeq, lastSeqOf(type, entry))),
    });
    this.segmentsAtOpen = [...this.journal.segments];
    this.mark = await SeqMark.open(dir, options.fs ?? nodeFs);
    // Seqs above the last record may have been given out (its record damaged, or a crash inside
    // a reserved block): the durable mark says how far.
    this.lastSeq = Math.max(this.lastSeq, this.mark.found);
    if (this.mark.damaged) await this.loadRest();
  }

  /** Feeds what the journal held at openTail() to the sink, then the deliveries appended since. */
  async loadRest(): Promise<void> {
    const deferred = this.deferred;
    if (!deferred) return;
    this.loadingRest = true;
    const restored = this.options.snapshot === false ? undefined : await this.snapshots.restore();
    if (restored) this.restoreFields(restored);
    this.snapshotUsed = restored?.at;
    await this.journal.loadRest(restored?.at);
    this.lost = rememberLoss(
      this.dir,
      lostRanges({ segments: this.segmentsAtOpen, deliveries: this.segmentSeqs, cut: this.cut, minSeq: this.minSeq, rejectedUpTo: this.rejectedUpTo }),
      this.minSeq,
    );
    if (this.lost.length > 0) this.options.onLoss?.(this.lost);
    if (this.mark.damaged) this.options.onSeqDamaged?.({ path: join(this.dir, SEQ_FILE), resumedAt: this.lastSeq });
    this.deferred = undefined;
    for (const feed of deferred) feed();
    this.snapshots.rows = this.lastSeq - this.minSeq;
    this.snapshots.start();
  }

  /** What an index snapshot keeps of this log (./journalSnapshot.ts). */
  private fields(): LogFields {
    const upTo = <T>(m: Map<number, T>) => [...m].filter(([seg]) => this.journal.segments.includes(seg));
    return {
      lastSeq: this.lastSeq,
      minSeq: this.minSeq,
      rejectedUpTo: this.rejectedUpTo,
      segments: [...this.journal.segments],
      segmentMaxSeq: upTo(this.segmentMaxSeq),
      segmentMaxRejected: upTo(this.segmentMaxRejected),
      segmentSeqs: upTo(this.segmentSeqs),
      corrupt: upTo(this.corruptBySegment),
      indexes: upTo(this.journal.indexes).filter(([seg]) => seg < this.journal.currentSegment),
    };
  }

  /**
   * Takes a snapshot's fields (its sink part restored): the records after its position then
   * add to them. Damage in segments not read again counts as the snapshot says (the last
   * segment, read by openTail, reported its own).
   */
  private restoreFields({ at, fields: f }: Restored): void {
    this.lastSeq = Math.max(this.lastSeq, f.lastSeq);
    this.minSeq = f.minSeq;
    this.rejectedUpTo = f.rejectedUpTo;
    for (const [seg, max] of f.segmentMaxSeq) this.segmentMaxSeq.set(seg, max);
    for (const [seg, max] of f.segmentMaxRejected) this.segmentMaxRejected.set(seg, max);
    for (const [seg, seqs] of f.segmentSeqs) this.segmentSeqs.set(seg, { ...seqs });
    for (const [seg, head] of f.indexes) if (!this.journal.indexes.has(seg)) this.journal.indexes.set(seg, head);
    const last = this.segmentsAtOpen.at(-1);
    for (const [segment, regions] of f.corrupt) {
      if (segment > at.segment || (segment === at.segment && segment === last)) continue;
      for (const [offset, bytes] of regions) {
        this.restoredCorrupt.regions++;
        this.restoredCorrupt.bytes += bytes;
        this.noteCorrupt({ segment, offset, bytes });
      }
    }
  }

  /** A damaged region reported at open (by the journal, or as an index snapshot kept it for a segment not read again). */
  private noteCorrupt(info: CorruptRegion): void {
    const list = this.corruptBySegment.get(info.segment) ?? [];
    list.push([info.offset, info.bytes]);
    this.corruptBySegment.set(info.segment, list);
    this.options.onCorrupt?.(info);
  }

  /** Feeds a record written by this process to the sink, after what was there before it (loadRest). */
  private feed(fn: () => void): void {
    if (this.deferred) this.deferred.push(fn);
    else fn();
  }

  /** Takes one record's index entry at open (decoded straight into the index). */
  private apply(type: number, entry: ByteReader, loc: RecordLocation): void {
    this.snapshots.noted(loc);
    if (type === T_DELIVERY) {
      const d = decodeDelivery(entry, true);
      this.lastSeq = Math.max(this.lastSeq, d.seq);
      this.noteSeq(loc.segment, d.seq);
      if (d.seq < this.minSeq) return;
      this.sink.delivery(d, bodySize(loc, d.metaLength), loc);
      this.touchDelivery(loc.segment, d.seq, d.verification === 'rejected');
    } else if (isAttempt(type)) {
      const rec = this.scratch;
      decodeAttemptInto(entry, rec);
      if (rec.seq > this.lastSeq) this.lastSeq = rec.seq;
      this.touchSegment(loc.segment, rec.seq);
      this.sink.attemptFields(rec.seq, rec.attempt, rec.hasState ? rec.state : undefined);
    } else if (type === T_PRUNE) {
      const minSeq = decodePrune(entry);
      // Every seq below minSeq was given out once (its record may be deleted): never reuse them.
      this.lastSeq = Math.max(this.lastSeq, minSeq - 1);
      this.dropBelow(minSeq);
    } else if (type === T_DROP_REJECTED) {
      const upTo = decodePrune(entry);
      this.touchSegment(loc.segment, upTo); // kept while rejected records up to it may remain elsewhere
      this.rejectedUpTo = Math.max(this.rejectedUpTo, upTo);
      this.sink.hideRejectedUpTo(upTo);
    }
  }

  /** Remembers that `segment` holds delivery `seq` (seqs ascend). */
  private noteSeq(segment: number, seq: number): void {
    const seqs = this.segmentSeqs.get(segment);
    if (seqs) seqs.maxSeq = seq;
    else this.segmentSeqs.set(segment, { minSeq: seq, maxSeq: seq });
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
    const max = this.segmentMaxSeq.get(segment);
    if (max === undefined || seq > max) this.segmentMaxSeq.set(segment, seq);
  }

  private dropBelow(minSeq: number): void {
    if (minSeq <= this.minSeq) return;
    this.minSeq = minSeq;
    this.sink.dropBelow(minSeq);
  }

  /** Journals a received delivery; `durable` resolves once it is on disk. Seqs are assigned in call order. */
  append(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<DeliveryMeta> } {
    const seq = ++this.lastSeq;
    // Whole milliseconds, as the earlier ISO 8601 receivedAt kept them.
    const receivedMs = Math.trunc(this.now());
    const full: DeliveryMeta = { seq, receivedAt: new Date(receivedMs).toISOString(), ...meta };
    const { head, indexed, entry } = deliveryRecord(seq, receivedMs, meta);
    const append = this.journal.append(T_DELIVERY, [head, body], { entry });
    const durable = this.snapshots.track(
      Promise.all([append, this.mark.cover(full.seq)]).then(
        ([loc]) => {
          this.wrote();
          this.touchDelivery(loc.segment, full.seq, full.verification === 'rejected');
          this.noteSeq(loc.segment, full.seq);
          this.snapshots.noted(loc);
          this.feed(() => this.sink.delivery(indexed, body.length, loc));
          return full;
        },
        (err: Error) => {
          // Journaled but not indexed when only the seq mark failed: the index no longer matches the journal.
          append.then(
            () => this.snapshots.stop(),
            () => undefined,
          );
          return this.writeFailed(err);
        },
      ),
    );
    return { seq: full.seq, durable };
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
   * Journals one forward attempt (durably) and feeds it to the index once it is on disk. `lazy`:
   * the record starts no fdatasync of its own but rides on the next delivery's (within the
   * journal's lazyMs), so a forward costs no sync beyond its delivery's.
   */
  async recordAttempt({ seq, attempt, state }: AttemptToRecord, options?: RecordAttemptOptions): Promise<void> {
    const entry = encodeAttempt(seq, attemptFields(attempt), stateFields(state));
    await this.snapshots.track(
      this.journal.append(T_ATTEMPT_ENTRY, [entry], { lazy: options?.lazy, entry }).then((loc) => {
        this.touchSegment(loc.segment, seq);
        this.snapshots.noted(loc);
        this.feed(() => this.sink.attempt(seq, attempt, state));
      }),
    );
  }

  /** The stored request: meta (with raw header pairs) and the body bytes, read from disk. */
  async read(_seq: number, row: IndexRow | undefined): Promise<ReadRecord | undefined> {
    if (!row) return undefined;
    const payload = await this.journal.read(row.loc).catch((err: unknown) => this.noteDamage(row, err));
    const { meta, metaLength } = parseMeta(payload);
    return { meta, body: payload.subarray(4 + metaLength) };
  }

  /**
   * The stored request with its body read from disk part by part as asked for (a large body goes
   * to a subscriber without being held whole); the checksum is checked with the last part.
   */
  async openBody(seq: number, row: IndexRow | undefined): Promise<BodyReader | undefined> {
    if (!row) return undefined;
    if (this.damaged.has(seq)) throw new JournalCorruptError(row.loc.segment, row.loc.offset, 'damaged record');
    const record = await this.journal.openRecord(row.loc).catch((err: unknown) => this.noteDamage(row, err));
    const next = (max: number) => record.next(max).catch((err: unknown) => this.noteDamage(row, err));
    const metaLength = (await next(4)).readUInt32LE(0);
    const meta = decodeMeta(await next(metaLength));
    return { meta, size: record.remaining, next };
  }

  /** A read found the record damaged: told once per seq, then rethrown. */
  private noteDamage(row: IndexRow, err: unknown): never {
    if (err instanceof JournalCorruptError && !this.damaged.has(row.seq)) {
      this.damaged.set(row.seq, row.loc.length);
      this.options.onCorrupt?.({ segment: row.loc.segment, offset: row.loc.offset, bytes: row.loc.length });
    }
    throw err;
  }

  /** Journals the prune floor, drops what is below it from the index, deletes whole segments no longer needed. */
  prune(minSeq: number): Promise<void> {
    return this.snapshots.track(this.pruneNow(minSeq));
  }

  private async pruneNow(minSeq: number): Promise<void> {
    if (minSeq <= this.minSeq) return;
    // When nothing in the active segment is kept, seal it so it can be deleted too (the prune
    // record goes to the new one, which stays).
    if (this.unneeded(this.journal.currentSegment, minSeq) && this.journal.currentSize > 0) await this.journal.rotate();
    const loc = await this.journal.append(T_PRUNE, [Buffer.from(JSON.stringify({ minSeq }), 'utf8')], { entry: encodePrune(minSeq) });
    this.snapshots.noted(loc);
    this.dropBelow(minSeq);
    await this.removeSegments(minSeq);
  }

  private async removeSegments(minSeq: number): Promise<void> {
    const gone = await this.journal.removeSegments((seg) => this.unneeded(seg, minSeq));
    for (const seg of gone) for (const m of [this.segmentMaxSeq, this.segmentMaxRejected, this.segmentSeqs, this.corruptBySegment]) m.delete(seg);
    if (gone.length > 0) this.snapshots.removed();
  }

  /** Journals that the rejected deliveries up to `upTo` are gone; their segments go once nothing else in them is kept. */
  dropRejected(upTo: number): Promise<void> {
    return this.snapshots.track(this.dropRejectedNow(upTo));
  }

  private async dropRejectedNow(upTo: number): Promise<void> {
    if (upTo <= this.rejectedUpTo) return;
    const loc = await this.journal.append(T_DROP_REJECTED, [Buffer.from(JSON.stringify({ upTo }), 'utf8')], { entry: encodePrune(upTo) });
    this.snapshots.noted(loc);
    this.touchSegment(loc.segment, upTo);
    this.rejectedUpTo = upTo;
    this.sink.hideRejectedUpTo(upTo);
    await this.removeSegments(this.minSeq);
  }

  /**
   * Damage found: records skipped at open (segments scanned), records that failed their checksum
   * when read (segments read through their index), bytes cut as torn tails.
   */
  integrity(): StoreIntegrity {
    const c = this.journal.corruption;
    let damagedBytes = 0;
    for (const bytes of this.damaged.values()) damagedBytes += bytes;
    return {
      corruptRecords: c.regions + this.restoredCorrupt.regions + this.damaged.size,
      corruptBytes: c.bytes + this.restoredCorrupt.bytes + damagedBytes,
      truncatedBytes: this.truncatedBytes,
      ...(this.mark.damaged ? { seqFileDamaged: true } : {}),
      ...(this.lost.length > 0 ? { lostDeliveries: rangeCount(this.lost), lost: describeRanges(this.lost) } : {}),
    };
  }

  /** Lets go of the files without a clean stop (no checkpoint, no exact seq mark): a kill, for tests. */
  async release(): Promise<void> {
    await this.snapshots.release();
    await this.journal.release();
    await this.mark.release();
  }

  async close(): Promise<void> {
    try {
      await this.journal.drain();
      if (!this.journal.failed) await this.snapshots.close();
      await this.journal.close();
    } finally {
      await this.mark.close(this.lastSeq);
    }
  }
}

/** The seq a record's index entry names (a delivery's, an attempt's, below a prune floor), 0 for others. */
function lastSeqOf(type: number, entry: ByteReader): number {
  if (type === T_DELIVERY || isAttempt(type)) return entrySeq(entry);
  return type === T_PRUNE ? decodePrune(entry) - 1 : 0;
}

/** Body bytes of a delivery record: u32 meta length | meta | body. */
function bodySize(loc: RecordLocation, metaLength: number): number {
  return loc.length - 4 - metaLength;
}
