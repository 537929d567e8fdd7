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
import { crc32 } from './crc32';
import { JournalClosedError, JournalCorruptError, JournalFailedError } from './journalErrors';
import { nodeFs, type JournalFile, type JournalFs } from './journalFs';
import { HEADER_BYTES, scanFrames } from './journalScan';
import { ByteReader } from './bytes';
import { forEachRecord, IndexBuffer, type IndexSnapshot } from './indexBuffer';
import { indexName, readIndex, writeIndex } from './segmentIndex';

export { JournalClosedError, JournalCorruptError, JournalFailedError } from './journalErrors';
export type { JournalFile, JournalFs } from './journalFs';

export { HEADER_BYTES } from './journalScan';
const SEGMENT_RE = /^journal-(\d{10})\.log$/;

export interface RecordLocation {
  segment: number;
  /** Offset of the record header in the segment file. */
  offset: number;
  /** Payload length. */
  length: number;
}

export interface JournalOptions {
  /** Start a new segment once the current one reaches this size (default 64 MiB). */
  segmentBytes?: number;
  /** Called for each record read from a segment at open, in order (not for segments read through their index). */
  onRecord?: (type: number, payload: Buffer, loc: RecordLocation) => void;
  /**
   * What to keep of a record in the segment index (its entry: a few bytes, never the body). Given
   * this, sealed segments get index files and a restart reads those instead of the segments.
   */
  summarize?: (type: number, payload: Buffer, loc: RecordLocation) => Buffer;
  /** Checkpoint the current segment's index after this many more bytes (default 16 MiB). */
  checkpointBytes?: number;
  /**
   * Called at open for every record in order, with a reader over its index entry (from the index
   * file or summarize); the reader is only good during the call.
   */
  onEntry?: (type: number, entry: ByteReader, loc: RecordLocation) => void;
  /** Told about truncated torn tails (segment, offset, bytes dropped). */
  onTruncate?: (info: { segment: number; offset: number; dropped: number }) => void;
  /** Told about damaged regions in the middle of a segment (skipped; later records are kept). */
  onCorrupt?: (info: CorruptRegion) => void;
  /** Longest a lazy append waits for another append's sync before it gets one of its own (default 10 ms). */
  lazyMs?: number;
  /** The file operations (tests inject failures here); default node:fs. */
  fs?: JournalFs;
}

export interface CorruptRegion {
  segment: number;
  offset: number;
  bytes: number;
}

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

function segmentName(n: number): string {
  return `journal-${String(n).padStart(10, '0')}.log`;
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
  /** Bytes of the current segment covered by its last index checkpoint. */
  private checkpointed = 0;

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly lazyMs: number,
    private readonly fs: JournalFs,
    /** Whether sealed segments get index files (the store gave a summarize function). */
    private readonly indexing: boolean,
    private readonly checkpointBytes: number,
  ) {}

  static async open(dir: string, options: JournalOptions = {}): Promise<Journal> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const j = new Journal(dir, options.segmentBytes ?? 64 * 1024 * 1024, options.lazyMs ?? 10, options.fs ?? nodeFs, !!options.summarize, options.checkpointBytes ?? 16 * 1024 * 1024);
    const names = (await j.fs.readdir(dir)).filter((n) => SEGMENT_RE.test(n)).sort();
    for (const name of names) j.segments.push(Number(SEGMENT_RE.exec(name)![1]));
    const last = j.segments.at(-1);
    for (const seg of j.segments) {
      // Each segment is read through its index file (written when it was sealed, or checkpointed
      // while it was current); only the bytes the index does not cover are scanned — all of a
      // segment whose index is missing or bad (e.g. after a kill between sealing and indexing).
      const loaded = j.indexing ? await j.loadIndex(seg, options) : undefined;
      if (loaded?.complete && seg !== last) continue;
      const index = loaded ? IndexBuffer.from(loaded.file) : new IndexBuffer(seg);
      if (!loaded?.complete) await j.scan(seg, options, index);
      if (seg === last) {
        j.tail = index;
        j.checkpointed = loaded?.file.bytes ?? 0;
      } else if (j.indexing) await writeIndex(j.fs, dir, index.snapshot(index.bytes)).catch(() => j.indexWriteErrors++);
    }
    if (last === undefined) await j.openSegment(1);
    else {
      j.fh = await j.fs.open(join(dir, segmentName(last)), 'append');
      j.segment = last;
      j.size = (await j.fh.stat()).size;
    }
    return j;
  }

  /**
   * Reads every record of a segment. Corruption in the middle is skipped (the scan resynchronises
   * on the next valid frame) and reported; a torn tail (no valid frame after it) is cut off.
   * Scans from the end of what `index` covers, adding to it.
   */
  private async scan(seg: number, options: JournalOptions, index: IndexBuffer): Promise<void> {
    const path = join(this.dir, segmentName(seg));
    const from = index.bytes;
    const fh = await this.fs.open(path, 'update');
    try {
      await fh.chmod(0o600);
      const total = (await fh.stat()).size;
      const buf = Buffer.allocUnsafe(total - from);
      await readFully(fh, buf, from);
      const { frames, corrupt, end } = scanFrames(buf);
      for (const region of corrupt) {
        this.reportCorrupt({ segment: seg, offset: from + region.offset, bytes: region.bytes }, options);
        index.corrupt.push([from + region.offset, region.bytes]);
      }
      const reader = new ByteReader();
      for (const f of frames) {
        const payload = buf.subarray(f.offset + HEADER_BYTES, f.offset + HEADER_BYTES + f.length);
        const loc = { segment: seg, offset: from + f.offset, length: f.length };
        options.onRecord?.(f.type, payload, loc);
        if (!this.indexing) continue;
        const entry = options.summarize!(f.type, payload, loc);
        index.push(f.type, loc.offset, f.length, entry);
        options.onEntry?.(f.type, reader.at(entry), loc);
      }
      index.bytes = from + end;
      if (end < buf.length) {
        await fh.truncate(from + end);
        await fh.datasync();
        options.onTruncate?.({ segment: seg, offset: from + end, dropped: buf.length - end });
      }
    } finally {
      await fh.close();
    }
  }

  private reportCorrupt(region: CorruptRegion, options: JournalOptions): void {
    this.corruption.regions++;
    this.corruption.bytes += region.bytes;
    options.onCorrupt?.(region);
  }

  /**
   * Feeds a segment's records from its index file (undefined when there is no valid one);
   * `complete` when the index covers the whole file.
   */
  private async loadIndex(seg: number, options: JournalOptions): Promise<{ file: IndexSnapshot; complete: boolean } | undefined> {
    const size = (await this.fs.stat(join(this.dir, segmentName(seg)))).size;
    const file = await readIndex(this.fs, this.dir, seg, size);
    if (!file) return undefined;
    for (const [offset, bytes] of file.corrupt) this.reportCorrupt({ segment: seg, offset, bytes }, options);
    const onEntry = options.onEntry;
    if (onEntry) forEachRecord(file.body, (type, entry, offset, length) => onEntry(type, entry, { segment: seg, offset, length }));
    return { file, complete: file.bytes === size };
  }

  private async openSegment(n: number): Promise<void> {
    const fh = await this.fs.open(join(this.dir, segmentName(n)), 'append');
    await fh.chmod(0o600);
    // The new file's name must survive a power cut before any record in it is acknowledged.
    await this.fs.syncDir(this.dir);
    if (this.fh) this.seal(this.tail.snapshot(this.size));
    await this.fh?.close().catch(() => undefined);
    this.fh = fh;
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

  /** Writes a segment's index file in the background (a failure only costs a scan at the next open). */
  private seal(index: IndexSnapshot): void {
    if (!this.indexing) return;
    this.sealing = this.sealing.then(() => writeIndex(this.fs, this.dir, index)).catch(() => void this.indexWriteErrors++);
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
    const typeByte = Buffer.of(type);
    let sum = crc32(typeByte);
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
        if (this.size >= this.segmentBytes) await this.openSegment(this.segment + 1).catch(() => undefined);
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
          await writeBatch(this.fh!, iov, this.size, pos - this.size);
          await this.fh!.datasync();
          this.syncs++;
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
    await readFully(await this.reader(loc.segment), buf, loc.offset).catch((err: unknown) => {
      throw err instanceof JournalCorruptError ? err : new JournalCorruptError(loc.segment, loc.offset, (err as Error).message);
    });
    const payload = buf.subarray(HEADER_BYTES);
    if (buf.readUInt32LE(0) !== loc.length) throw new JournalCorruptError(loc.segment, loc.offset, 'record length does not match the index');
    if (crc32(payload, crc32(buf.subarray(8, 9))) !== buf.readUInt32LE(4)) throw new JournalCorruptError(loc.segment, loc.offset, 'checksum mismatch');
    return payload;
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

async function readFully(fh: JournalFile, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new Error('unexpected end of file');
    done += bytesRead;
  }
}
