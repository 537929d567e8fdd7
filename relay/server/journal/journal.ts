// The relay's append-only journal: segment files of checksummed records, group-committed with
// fdatasync (every append that arrives while a sync is in flight joins the next batch), a torn
// tail truncated at start-up, files 0600 in a 0700 directory. A lazy append (bookkeeping such
// as forward attempts) starts no sync of its own: it joins the next one, at the latest after
// `lazyMs`; close() writes it out.
//
// Record: u32 LE payload length | u32 LE crc32(type byte + payload) | u8 type | payload.
import { mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { writeBatch } from './batchWrite';
import { crc32 } from '../base/crc32';
import { JournalClosedError, JournalCorruptError, JournalFailedError } from './journalErrors';
import { nodeFs, readFully, readFullySync, type JournalFile, type JournalFs } from './journalFs';
import { HEADER_BYTES, typeCrc } from './journalScan';
import { IndexBuffer, type IndexSnapshot } from './indexBuffer';
import { indexName, writeIndex, type IndexHead } from './segmentIndex';
import { feedRecords, loadSegment, readSegment, segmentName, type LoadContext, type SegmentRead } from './journalLoad';
import type { JournalPosition } from './snapshotFile';
import { RecordReader } from './recordReader';
import type { JournalOptions, RecordLocation } from './journalTypes';

export { JournalClosedError, JournalCorruptError, JournalFailedError } from './journalErrors';
export type { JournalFile, JournalFs } from './journalFs';

export { HEADER_BYTES } from './journalScan';
export type { CorruptRegion, JournalOptions, RecordLocation, SyncedBatch, TruncatedTail } from './journalTypes';
const SEGMENT_RE = /^journal-(\d{10})\.log$/;
/**
 * Records up to this size are read on the calling thread: a forward reads its delivery back, and
 * a pread of some kilobytes from the page cache costs a few microseconds where the thread pool's
 * round trip cost about 25 µs of CPU and more of waiting (a drain of 10,000 pending deliveries of
 * 10 KB spent a quarter of its time there). Larger records go through the pool so the event loop
 * is not held.
 */
export const SYNC_READ_MAX_BYTES = 64 * 1024;
/** Segments whose index files are read ahead of the one being fed at open. */
const READ_AHEAD = 4;

export interface AppendOptions {
  /** Start no sync for this record: it joins the next one (at the latest after `lazyMs`). */
  lazy?: boolean;
  /** The record's entry for the segment index (see JournalOptions.summarize). */
  entry?: Uint8Array;
}

const NO_ENTRY = new Uint8Array(0);

interface Pending {
  type: number;
  entry: Uint8Array;
  header: Buffer;
  parts: Uint8Array[];
  length: number;
  resolve: (loc: RecordLocation) => void;
  reject: (err: Error) => void;
}

export class Journal {
  private fh: JournalFile | undefined;
  private segment = 0;
  private size = 0;
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  /** Queued records that want a sync now (the rest are lazy). */
  private eager = 0;
  private lazyTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Set when a failed write could be neither cut off nor left behind: appends are refused. */
  private failure: JournalFailedError | undefined;
  private readonly readers = new Map<number, Promise<JournalFile>>();
  readonly segments: number[] = [];
  /** What each sealed segment's index file says of it (written, or being written): an index snapshot checks them. */
  readonly indexes = new Map<number, IndexHead>();
  /** Number of fdatasync calls so far (group-commit evidence for tests and the benchmark). */
  syncs = 0;
  /** Damaged regions skipped while reading segments (each held at least one record). */
  readonly corruption = { regions: 0, bytes: 0 };
  /** Index records of the current segment, written to its index file when it is sealed (and at checkpoints). */
  private tail = new IndexBuffer(0);
  /** Index files being written (close and prune wait for them). */
  private sealing: Promise<void> = Promise.resolve();
  /** Index files that could not be written (they are rebuilt at the next open). */
  indexWriteErrors = 0;
  private rotateFailing = false;
  /** Bytes of the current segment covered by its last index checkpoint. */
  private checkpointed = 0;
  private onSync: JournalOptions['onSync'];
  /** What openTail() left for loadRest(): the sealed segments, and the last one's records as found. */
  private unloaded: { ctx: LoadContext; sealed: number[]; tail: IndexSnapshot | undefined } | undefined;

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly lazyMs: number,
    private readonly fs: JournalFs,
    /** Whether sealed segments get index files (the store gave a summarize function). */
    private readonly indexing: boolean,
    private readonly checkpointBytes: number,
    private readonly onProblem: (line: string) => void = () => undefined,
  ) {}

  /** Opens the journal, feeding every record it holds to the options (onEntry, onRecord, …) in order. */
  static async open(dir: string, options: JournalOptions = {}): Promise<Journal> {
    const j = await Journal.listed(dir, options);
    const ctx = j.loadContext(options);
    await j.loadSealed(ctx, j.segments.slice(0, -1));
    await j.openLast(ctx);
    return j;
  }

  /**
   * Opens the journal for appends after reading only its last segment (its torn tail cut), whose
   * records go to `options.onTailEntry` (not onEntry): what a relay needs to number new deliveries
   * before the rest is loaded. loadRest() then feeds every record present at this point, in order,
   * to onEntry, exactly once; records appended meanwhile are not fed (their appender has them).
   */
  static async openTail(dir: string, options: JournalOptions = {}): Promise<Journal> {
    const j = await Journal.listed(dir, options);
    const ctx = j.loadContext(options);
    const tail = await j.openLast({ ...ctx, options: { ...options, onEntry: options.onTailEntry } });
    j.unloaded = { ctx, sealed: j.segments.slice(0, -1), tail };
    return j;
  }

  /** A journal of `dir`'s segments, nothing read yet. */
  private static async listed(dir: string, options: JournalOptions): Promise<Journal> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const j = new Journal(
      dir,
      options.segmentBytes ?? 64 * 1024 * 1024,
      options.lazyMs ?? 10,
      options.fs ?? nodeFs,
      !!options.summarize,
      options.checkpointBytes ?? 16 * 1024 * 1024,
      options.onProblem,
    );
    j.onSync = options.onSync;
    const names = (await j.fs.readdir(dir)).filter((n) => SEGMENT_RE.test(n)).sort();
    for (const name of names) j.segments.push(Number(SEGMENT_RE.exec(name)![1]));
    return j;
  }

  /** Loads the last segment (its torn tail cut) and opens it for appends; returns its records as found. */
  private async openLast(ctx: LoadContext): Promise<IndexSnapshot | undefined> {
    const last = this.segments.at(-1);
    if (last === undefined) {
      await this.openSegment(1);
      return undefined;
    }
    const loaded = await loadSegment(ctx, last, true);
    if (loaded.indexWriteFailed) this.indexWriteErrors++;
    this.tail = loaded.index;
    this.checkpointed = loaded.checkpointed;
    this.fh = await this.fs.open(join(this.dir, segmentName(last)), 'append');
    this.segment = last;
    this.size = (await this.fh.stat()).size;
    return loaded.index.snapshot(loaded.index.bytes);
  }

  /** Feeds sealed segments in order, their index files read a few ahead (./journalLoad.ts readSegment). */
  private async loadSealed(ctx: LoadContext, sealed: number[]): Promise<void> {
    const reads: Promise<SegmentRead>[] = [];
    const readAhead = (k: number) => {
      for (let m = reads.length; m < Math.min(k + READ_AHEAD, sealed.length); m++) {
        reads.push(readSegment(ctx, sealed[m]!));
        reads[m]!.catch(() => undefined); // (awaited, and so thrown, when its turn comes)
      }
    };
    for (const [k, seg] of sealed.entries()) {
      readAhead(k);
      const loaded = await loadSegment(ctx, seg, false, await reads[k]!);
      if (loaded.indexWriteFailed) this.indexWriteErrors++;
      if (loaded.head) this.indexes.set(seg, loaded.head);
    }
  }

  /** After openTail(): feeds what the journal held to onEntry, once, in order (with `from`, an index snapshot's place: from there on). */
  async loadRest(from?: JournalPosition): Promise<void> {
    const rest = this.unloaded;
    this.unloaded = undefined;
    if (!rest) return;
    const ctx = { ...rest.ctx, from };
    await this.loadSealed(
      ctx,
      rest.sealed.filter((s) => s >= (from?.segment ?? 0)),
    );
    if (rest.tail) feedRecords(ctx, rest.tail);
  }

  private loadContext(options: JournalOptions): LoadContext {
    return {
      fs: this.fs,
      dir: this.dir,
      indexing: this.indexing,
      options,
      corrupt: (region) => {
        this.corruption.regions++;
        this.corruption.bytes += region.bytes;
        options.onCorrupt?.(region);
      },
    };
  }

  private async openSegment(n: number): Promise<void> {
    const fh = await this.fs.open(join(this.dir, segmentName(n)), 'append');
    await fh.chmod(0o600);
    // The new file's name must survive a power cut before any record in it is acknowledged.
    await this.fs.syncDir(this.dir);
    if (this.fh) this.seal(this.tail.snapshot(this.size));
    await this.fh?.close().catch(() => undefined);
    this.fh = fh;
    this.rotateFailing = false;
    this.segment = n;
    this.size = 0;
    this.tail = new IndexBuffer(n);
    this.checkpointed = 0;
    if (!this.segments.includes(n)) this.segments.push(n);
  }

  /**
   * Checkpoints the current segment's index (what is durable so far) once `checkpointBytes`
   * more were written, so a restart after a kill scans at most that much of it.
   */
  private checkpointIfDue(options: { force: boolean }): void {
    if (!this.indexing || this.size === this.checkpointed) return;
    if (!options.force && this.size - this.checkpointed < this.checkpointBytes) return;
    this.checkpointed = this.size;
    this.seal(this.tail.snapshot(this.size));
  }

  /** Says once (until a segment starts again) that segments cannot be started: the data folder is read-only or full. */
  private rotateFailed(err: Error): void {
    if (this.rotateFailing) return;
    this.rotateFailing = true;
    this.onProblem(`cannot start a new segment in ${this.dir} (${err.message}); segment ${this.segment} grows instead`);
  }

  /** Writes a segment's index file in the background (a failure only costs a scan at the next open). */
  private seal(index: IndexSnapshot): void {
    if (!this.indexing) return;
    this.indexes.set(index.segment, { bytes: index.bytes, count: index.count, crc: index.crc });
    this.sealing = this.sealing
      .then(() => writeIndex(this.fs, this.dir, index))
      .catch((err: Error) => {
        if (this.indexWriteErrors++ === 0)
          this.onProblem(`cannot write the index file of segment ${index.segment} in ${this.dir} (${err.message}); the next start reads the segment instead`);
      });
  }

  /**
   * Drops whatever a failed write left past `this.size`: cuts the file, or, when that fails,
   * goes on in a fresh segment. When both fail, the journal refuses every later append (its
   * locations would no longer match the file).
   */
  private async discardTail(cause: unknown): Promise<void> {
    try {
      await this.fh!.truncate(this.size);
      return;
    } catch {
      // fall through: rotate
    }
    try {
      await this.openSegment(this.segment + 1);
    } catch {
      this.failure = new JournalFailedError(cause);
      for (const p of this.queue.splice(0)) p.reject(this.failure);
    }
  }

  /** The error every append gets once a failed write could not be undone (else undefined). */
  get failed(): JournalFailedError | undefined {
    return this.failure;
  }

  get currentSegment(): number {
    return this.segment;
  }

  /** Bytes written to the current segment. */
  get currentSize(): number {
    return this.size;
  }

  /** Seals the current segment and goes on in a new one (after writing out what is queued). */
  async rotate(): Promise<void> {
    await this.drain();
    while (this.flushing) await this.flushing;
    const rotating = this.openSegment(this.segment + 1);
    this.flushing = rotating.then(
      () => undefined,
      () => undefined,
    );
    try {
      await rotating;
    } finally {
      this.flushing = undefined;
      if (this.eager > 0) this.flushEager();
      else if (this.queue.length > 0 && !this.closed) this.lazyTimer ??= setTimeout(() => this.flushAll(), this.lazyMs);
    }
  }

  /** Appends one record; resolves once it is on disk (after the batch's fdatasync). */
  append(type: number, parts: Uint8Array[], options?: AppendOptions): Promise<RecordLocation> {
    if (this.closed) return Promise.reject(new JournalClosedError());
    if (this.failure) return Promise.reject(this.failure);
    if (type < 1 || type > 255) throw new RangeError('record type must be 1..255');
    let length = 0;
    let sum = typeCrc(type);
    for (const p of parts) {
      length += p.byteLength;
      sum = crc32(p, sum);
    }
    const header = Buffer.allocUnsafe(HEADER_BYTES);
    header.writeUInt32LE(length, 0);
    header.writeUInt32LE(sum, 4);
    header[8] = type;
    return new Promise((resolve, reject) => {
      this.queue.push({ type, entry: options?.entry ?? NO_ENTRY, header, parts, length, resolve, reject });
      if (options?.lazy) {
        if (!this.flushing) this.lazyTimer ??= setTimeout(() => this.flushAll(), this.lazyMs);
        return;
      }
      this.eager++;
      if (!this.flushing) this.flushEager();
    });
  }

  /** Resolves when everything appended so far (lazy records too) is on disk. */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      if (!this.flushing) this.flushAll();
      await this.flushing;
    }
  }

  /** Starts writing every queued record, lazy ones included. */
  private flushAll(): void {
    this.startFlush({ includeLazy: true });
  }

  /** Starts writing queued records if an eager one waits. */
  private flushEager(): void {
    this.startFlush({ includeLazy: false });
  }

  private startFlush(options: { includeLazy: boolean }): void {
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    if (!this.flushing && this.queue.length > 0) this.flushing = this.flush(options.includeLazy);
  }

  /** Writes and syncs batches while an eager record waits (or, the first time with `includeLazy`, any record). */
  private async flush(includeLazy: boolean): Promise<void> {
    // Let every append issued in the same tick join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.queue.length > 0 && (includeLazy || this.eager > 0) && !this.failure) {
        includeLazy = false;
        // A segment that cannot be rotated just grows: the records are as safe in it.
        if (this.size >= this.segmentBytes) await this.openSegment(this.segment + 1).catch((err: Error) => this.rotateFailed(err));
        this.eager = 0;
        const batch = this.queue.splice(0);
        const locs: RecordLocation[] = [];
        const iov: Uint8Array[] = [];
        let pos = this.size;
        for (const p of batch) {
          locs.push({ segment: this.segment, offset: pos, length: p.length });
          iov.push(p.header, ...p.parts);
          pos += HEADER_BYTES + p.length;
        }
        try {
          const t0 = performance.now();
          await writeBatch(this.fh!, iov, this.size, pos - this.size);
          const t1 = performance.now();
          await this.fh!.datasync();
          this.syncs++;
          this.onSync?.({ records: batch.length, bytes: pos - this.size, writeMs: t1 - t0, syncMs: performance.now() - t1 });
        } catch (err) {
          for (const p of batch) p.reject(err as Error);
          // Part of the batch may be in the file. Segments are opened O_APPEND, so the next batch
          // would land after those bytes while its locations say `this.size`: cut them off first,
          // or, if that fails too, go on in a fresh segment.
          await this.discardTail(err);
          continue;
        }
        this.size = pos;
        if (this.indexing) batch.forEach((p, i) => this.tail.push(p.type, locs[i]!.offset, p.length, p.entry));
        batch.forEach((p, i) => p.resolve(locs[i]!));
        this.checkpointIfDue({ force: false });
      }
    } finally {
      this.flushing = undefined;
      // Only lazy records left: they wait for the next eager append, or the timer.
      if (this.queue.length > 0 && !this.closed && !this.failure) this.lazyTimer ??= setTimeout(() => this.flushAll(), this.lazyMs);
    }
  }

  /**
   * Reads one record's payload back, checking its frame (length and checksum): a mismatch throws
   * JournalCorruptError.
   */
  async read(loc: RecordLocation): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(HEADER_BYTES + loc.length);
    const fh = await this.reader(loc.segment);
    try {
      // A small record is read on the calling thread (see SYNC_READ_MAX_BYTES).
      if (buf.length <= SYNC_READ_MAX_BYTES) readFullySync(fh, buf, loc.offset);
      else await readFully(fh, buf, loc.offset);
    } catch (err) {
      throw err instanceof JournalCorruptError ? err : new JournalCorruptError(loc.segment, loc.offset, (err as Error).message);
    }
    const payload = buf.subarray(HEADER_BYTES);
    if (buf.readUInt32LE(0) !== loc.length) throw new JournalCorruptError(loc.segment, loc.offset, 'record length does not match the index');
    if (crc32(payload, crc32(buf.subarray(8, 9))) !== buf.readUInt32LE(4)) throw new JournalCorruptError(loc.segment, loc.offset, 'checksum mismatch');
    return payload;
  }

  /** Opens a record to read its payload in parts, in order (checked as the last part is read). */
  async openRecord(loc: RecordLocation): Promise<RecordReader> {
    return RecordReader.open(await this.reader(loc.segment), loc);
  }

  /** Reads `length` bytes of a record's payload from `start`, unchecked (for parts of large records). */
  async readPart(loc: RecordLocation, part: { start: number; length: number }): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(part.length);
    await readFully(await this.reader(loc.segment), buf, loc.offset + HEADER_BYTES + part.start);
    return buf;
  }

  /** The cached read handle of a segment; a failed open is not kept (the next read tries again). */
  private reader(seg: number): Promise<JournalFile> {
    let reader = this.readers.get(seg);
    if (!reader) {
      reader = this.fs.open(join(this.dir, segmentName(seg)), 'read');
      this.readers.set(seg, reader);
      reader.catch(() => {
        if (this.readers.get(seg) === reader) this.readers.delete(seg);
      });
    }
    return reader;
  }

  private async closeReader(seg: number): Promise<void> {
    const r = this.readers.get(seg);
    this.readers.delete(seg);
    if (r) await (await r.catch(() => undefined))?.close();
  }

  /** Deletes whole segments (never the current one) for which `drop(segment)` is true. */
  async removeSegments(drop: (segment: number) => boolean): Promise<number[]> {
    await this.sealing;
    const removed: number[] = [];
    for (const seg of [...this.segments]) {
      if (seg === this.segment || !drop(seg)) continue;
      await this.closeReader(seg);
      await this.fs.unlink(join(this.dir, segmentName(seg))).catch(() => undefined);
      await this.fs.unlink(join(this.dir, indexName(seg))).catch(() => undefined);
      this.segments.splice(this.segments.indexOf(seg), 1);
      removed.push(seg);
      this.indexes.delete(seg);
    }
    if (removed.length > 0) await this.fs.syncDir(this.dir).catch(() => undefined);
    return removed;
  }

  /**
   * Lets go of the files without writing anything more — no checkpoint, queued records dropped —
   * as a killed process would (index writes already started are awaited). For tests of a kill.
   */
  async release(): Promise<void> {
    this.closed = true;
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    await this.flushing;
    await this.sealing;
    for (const seg of [...this.readers.keys()]) await this.closeReader(seg);
    await this.fh?.close();
    this.fh = undefined;
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    for (const seg of [...this.readers.keys()]) await this.closeReader(seg);
    // The next open then scans nothing.
    if (!this.failure) this.checkpointIfDue({ force: true });
    await this.sealing;
    await this.fh?.close();
    this.fh = undefined;
  }
}
