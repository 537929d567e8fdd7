// The relay's append-only journal: segment files of checksummed records, group-committed with
// fdatasync (every append that arrives while a sync is in flight joins the next batch), a torn
// tail truncated at start-up, files 0600 in a 0700 directory. A lazy append (bookkeeping such
// as forward attempts) starts no sync of its own: it joins the next one, at the latest after
// `lazyMs`; close() writes it out.
//
// Record: u32 LE payload length | u32 LE crc32(type byte + payload) | u8 type | payload.
import { mkdirSync, chmodSync } from 'node:fs';
import { open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from './crc32';

export const HEADER_BYTES = 9;
const SEGMENT_RE = /^journal-(\d{10})\.log$/;
const MAX_IOV = 512;

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
  /** Called for each record found at open, in order. */
  onRecord?: (type: number, payload: Buffer, loc: RecordLocation) => void;
  /** Told about truncated torn tails (segment, offset, bytes dropped). */
  onTruncate?: (info: { segment: number; offset: number; dropped: number }) => void;
  /** Longest a lazy append waits for another append's sync before it gets one of its own (default 10 ms). */
  lazyMs?: number;
}

export interface AppendOptions {
  /** Start no sync for this record: it joins the next one (at the latest after `lazyMs`). */
  lazy?: boolean;
}

interface Pending {
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
  private fh: FileHandle | undefined;
  private segment = 0;
  private size = 0;
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  /** Queued records that want a sync now (the rest are lazy). */
  private eager = 0;
  private lazyTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly readers = new Map<number, Promise<FileHandle>>();
  readonly segments: number[] = [];
  /** Number of fdatasync calls so far (group-commit evidence for tests and the benchmark). */
  syncs = 0;

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly lazyMs: number,
  ) {}

  static async open(dir: string, options: JournalOptions = {}): Promise<Journal> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const j = new Journal(dir, options.segmentBytes ?? 64 * 1024 * 1024, options.lazyMs ?? 10);
    const names = (await readdir(dir)).filter((n) => SEGMENT_RE.test(n)).sort();
    for (const name of names) j.segments.push(Number(SEGMENT_RE.exec(name)![1]));
    for (const seg of j.segments) await j.scan(seg, options);
    const last = j.segments.at(-1);
    if (last === undefined) await j.openSegment(1);
    else {
      j.fh = await open(join(dir, segmentName(last)), 'a', 0o600);
      j.segment = last;
      j.size = (await j.fh.stat()).size;
    }
    return j;
  }

  /** Reads every record of a segment; truncates the file at the first torn or corrupt record. */
  private async scan(seg: number, options: JournalOptions): Promise<void> {
    const path = join(this.dir, segmentName(seg));
    const fh = await open(path, 'r+');
    try {
      await fh.chmod(0o600);
      const total = (await fh.stat()).size;
      let offset = 0;
      const header = Buffer.alloc(HEADER_BYTES);
      while (offset < total) {
        if (total - offset < HEADER_BYTES) break;
        await readFully(fh, header, offset);
        const length = header.readUInt32LE(0);
        const sum = header.readUInt32LE(4);
        const type = header[8]!;
        if (type === 0 || offset + HEADER_BYTES + length > total) break;
        const payload = Buffer.allocUnsafe(length);
        await readFully(fh, payload, offset + HEADER_BYTES);
        if (crc32(payload, crc32(header.subarray(8, 9))) !== sum) break;
        options.onRecord?.(type, payload, { segment: seg, offset, length });
        offset += HEADER_BYTES + length;
      }
      if (offset < total) {
        await fh.truncate(offset);
        await fh.datasync();
        options.onTruncate?.({ segment: seg, offset, dropped: total - offset });
      }
    } finally {
      await fh.close();
    }
  }

  private async openSegment(n: number): Promise<void> {
    await this.fh?.close();
    this.fh = await open(join(this.dir, segmentName(n)), 'a', 0o600);
    await this.fh.chmod(0o600);
    this.segment = n;
    this.size = 0;
    if (!this.segments.includes(n)) this.segments.push(n);
  }

  /** Drops whatever a failed write left past `this.size` (rotates when the file cannot be cut). */
  private async discardTail(): Promise<void> {
    try {
      await this.fh!.truncate(this.size);
    } catch {
      await this.openSegment(this.segment + 1).catch(() => {});
    }
  }

  get currentSegment(): number {
    return this.segment;
  }

  /** Appends one record; resolves once it is on disk (after the batch's fdatasync). */
  append(type: number, parts: Uint8Array[], options?: AppendOptions): Promise<RecordLocation> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
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
      this.queue.push({ header, parts, length, resolve, reject });
      if (options?.lazy) {
        if (!this.flushing) this.lazyTimer ??= setTimeout(() => this.startFlush(true), this.lazyMs);
        return;
      }
      this.eager++;
      if (!this.flushing) this.startFlush(false);
    });
  }

  /** Resolves when everything appended so far (lazy records too) is on disk. */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      if (!this.flushing) this.startFlush(true);
      await this.flushing;
    }
  }

  private startFlush(all: boolean): void {
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    if (!this.flushing && this.queue.length > 0) this.flushing = this.flush(all);
  }

  /** Writes and syncs batches while an eager record waits (or, with `all`, any record). */
  private async flush(all: boolean): Promise<void> {
    // Let every append issued in the same tick join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.queue.length > 0 && (all || this.eager > 0)) {
        all = false;
        if (this.size >= this.segmentBytes) await this.openSegment(this.segment + 1);
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
          await writeAll(this.fh!, iov, this.size);
          await this.fh!.datasync();
          this.syncs++;
        } catch (err) {
          for (const p of batch) p.reject(err as Error);
          // Part of the batch may be in the file. Segments are opened O_APPEND, so the next batch
          // would land after those bytes while its locations say `this.size`: cut them off first,
          // or, if that fails too, go on in a fresh segment.
          await this.discardTail();
          continue;
        }
        this.size = pos;
        batch.forEach((p, i) => p.resolve(locs[i]!));
      }
    } finally {
      this.flushing = undefined;
      // Only lazy records left: they wait for the next eager append, or the timer.
      if (this.queue.length > 0 && !this.closed) this.lazyTimer ??= setTimeout(() => this.startFlush(true), this.lazyMs);
    }
  }

  /** Reads one record's payload back (or `length` bytes of it from `start`). */
  async read(loc: RecordLocation, start = 0, length = loc.length - start): Promise<Buffer> {
    let reader = this.readers.get(loc.segment);
    if (!reader) {
      reader = open(join(this.dir, segmentName(loc.segment)), 'r');
      this.readers.set(loc.segment, reader);
    }
    const buf = Buffer.allocUnsafe(length);
    await readFully(await reader, buf, loc.offset + HEADER_BYTES + start);
    return buf;
  }

  private async closeReader(seg: number): Promise<void> {
    const r = this.readers.get(seg);
    this.readers.delete(seg);
    if (r) await (await r.catch(() => undefined))?.close();
  }

  /** Deletes whole segments (never the current one) for which `drop(segment)` is true. */
  async removeSegments(drop: (segment: number) => boolean): Promise<number[]> {
    const removed: number[] = [];
    for (const seg of [...this.segments]) {
      if (seg === this.segment || !drop(seg)) continue;
      await this.closeReader(seg);
      await unlink(join(this.dir, segmentName(seg))).catch(() => undefined);
      this.segments.splice(this.segments.indexOf(seg), 1);
      removed.push(seg);
    }
    return removed;
  }

  async close(): Promise<void> {
    await this.drain();
    this.closed = true;
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    for (const seg of [...this.readers.keys()]) await this.closeReader(seg);
    await this.fh?.close();
    this.fh = undefined;
  }
}

async function readFully(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new Error('journal: unexpected end of file');
    done += bytesRead;
  }
}

async function writeAll(fh: FileHandle, iov: Uint8Array[], position: number): Promise<void> {
  for (let i = 0; i < iov.length; i += MAX_IOV) {
    const chunk = iov.slice(i, i + MAX_IOV);
    const want = chunk.reduce((n, b) => n + b.byteLength, 0);
    const { bytesWritten } = await fh.writev(chunk as NodeJS.ArrayBufferView[], position);
    if (bytesWritten < want) {
      const rest = Buffer.concat(chunk).subarray(bytesWritten);
      let off = 0;
      while (off < rest.length) off += (await fh.write(rest, off, rest.length - off, position + bytesWritten + off)).bytesWritten;
    }
    position += want;
  }
}
