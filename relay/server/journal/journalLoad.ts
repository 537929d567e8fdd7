// Reading the journal's segments back at open. Each segment is read through its index file
// (written when it was sealed, or checkpointed while it was current); only the bytes the index
// does not cover are scanned — all of a segment whose index is missing or bad (e.g. after a kill
// between sealing and indexing), whose index is then written again.
import { join } from 'node:path';
import { ByteReader } from '../base/bytes';
import { forEachRecord, IndexBuffer, type IndexSnapshot } from './indexBuffer';
import type { CorruptRegion, JournalOptions } from './journalTypes';
import { readFully, type JournalFs } from './journalFs';
import { HEADER_BYTES, scanFrames } from './journalScan';
import { readIndex, writeIndex, type IndexHead } from './segmentIndex';
import type { JournalPosition } from './snapshotFile';

export function segmentName(n: number): string {
  return `journal-${String(n).padStart(10, '0')}.log`;
}

export interface LoadContext {
  fs: JournalFs;
  dir: string;
  /** Whether segments have index files (the store gave a summarize function). */
  indexing: boolean;
  options: JournalOptions;
  /** Told about each damaged region (from a scan, or as its index file recorded it). */
  corrupt: (region: CorruptRegion) => void;
  /**
   * Buffers free to read index files into (one per segment read ahead, reused: no garbage of a
   * megabyte or two per file); a segment's goes back once it is fed (nothing keeps a view of it).
   */
  buffers?: Buffer[];
  /** An index snapshot holds every record and damage before this: only those from here on are fed and reported. */
  from?: JournalPosition;
}

/** Whether what is at `offset` of segment `seg` is fed (it is not in the index snapshot loaded from). */
export function fedFrom(ctx: LoadContext, seg: number, offset: number): boolean {
  const from = ctx.from;
  return !from || seg > from.segment || (seg === from.segment && offset >= from.offset);
}

function takeBuffer(ctx: LoadContext, size: number): Buffer {
  const free = (ctx.buffers ??= []).pop();
  return free && free.length >= size ? free : Buffer.allocUnsafe(Math.max(size, 2 * (free?.length ?? 0)));
}

/** What reading a segment's index file found (I/O only: nothing is fed before loadSegment). */
export interface SegmentRead {
  segmentBytes: number;
  file: IndexSnapshot | undefined;
  /** The buffer the file was read into (back to the pool once fed). */
  buffer: Buffer | undefined;
}

/**
 * Reads a segment's size and its index file. Several run ahead of the segment being fed
 * (Journal.open), so the file system's round trips overlap the decoding instead of adding to it.
 */
export async function readSegment(ctx: LoadContext, seg: number): Promise<SegmentRead> {
  if (!ctx.indexing) return { segmentBytes: 0, file: undefined, buffer: undefined };
  // The segment's size, for the check and the notice.
  const segmentBytes = (await ctx.fs.stat(join(ctx.dir, segmentName(seg)))).size;
  let buffer: Buffer | undefined;
  const file = await readIndex(ctx.fs, ctx.dir, seg, segmentBytes, (size) => (buffer = takeBuffer(ctx, size)).subarray(0, size));
  return { segmentBytes, file, buffer };
}

export interface LoadedSegment {
  /** The segment's index records (for the current segment: to append to). */
  index: IndexBuffer;
  /** Bytes its index file covered (0 when it had none). */
  checkpointed: number;
  /** A rebuilt index file could not be written (the next open scans again). */
  indexWriteFailed: boolean;
  /** A sealed segment's: what its index file's header says. */
  head?: IndexHead;
}

/** Feeds one segment's records to the journal's options (onEntry, onRecord, …). */
export async function loadSegment(ctx: LoadContext, seg: number, current: boolean, read?: SegmentRead): Promise<LoadedSegment> {
  const { segmentBytes, file, buffer } = read ?? (await readSegment(ctx, seg));
  try {
    if (file) feedIndex(ctx, seg, file);
    return await completeSegment(ctx, seg, current, segmentBytes, file);
  } finally {
    if (buffer) ctx.buffers!.push(buffer);
  }
}

/** After its index file's records: scans what the file did not cover, writes the file again when it was not whole. */
async function completeSegment(ctx: LoadContext, seg: number, current: boolean, segmentBytes: number, file: IndexSnapshot | undefined): Promise<LoadedSegment> {
  const complete = file !== undefined && file.bytes === segmentBytes;
  // A sealed segment fully indexed: nothing more to read or keep.
  if (complete && !current)
    return { index: new IndexBuffer(seg), checkpointed: file.bytes, indexWriteFailed: false, head: { bytes: file.bytes, count: file.count, crc: file.crc } };
  const index = file ? IndexBuffer.from(file) : new IndexBuffer(seg);
  if (!complete && !current && ctx.indexing) ctx.options.onRebuild?.({ segment: seg, bytes: segmentBytes - (file?.bytes ?? 0) });
  if (!complete) await scan(ctx, seg, index, current);
  let indexWriteFailed = false;
  const written = index.snapshot(index.bytes);
  if (!current && ctx.indexing) await writeIndex(ctx.fs, ctx.dir, written).catch(() => (indexWriteFailed = true));
  const head = current ? undefined : { bytes: written.bytes, count: written.count, crc: written.crc };
  return { index, checkpointed: file?.bytes ?? 0, indexWriteFailed, ...(head ? { head } : {}) };
}

/** Feeds a segment's records from its (valid) index file. */
function feedIndex(ctx: LoadContext, seg: number, file: IndexSnapshot): void {
  for (const [offset, bytes] of file.corrupt) if (fedFrom(ctx, seg, offset)) ctx.corrupt({ segment: seg, offset, bytes });
  feedRecords(ctx, file);
}

/** Feeds the records of a segment's index (those from `ctx.from` on) to onEntry. */
export function feedRecords(ctx: LoadContext, index: IndexSnapshot): void {
  const onEntry = ctx.options.onEntry;
  if (!onEntry) return;
  forEachRecord(index.body, (type, entry, offset, length) => {
    if (fedFrom(ctx, index.segment, offset)) onEntry(type, entry, { segment: index.segment, offset, length });
  });
}

/**
 * Reads the records of a segment from the end of what `index` covers, adding them to it.
 * Corruption in the middle is skipped (the scan resynchronises on the next valid frame) and
 * reported; a torn tail (no valid frame after it) is cut off.
 */
async function scan(ctx: LoadContext, seg: number, index: IndexBuffer, current: boolean): Promise<void> {
  const { options } = ctx;
  const from = index.bytes;
  const fh = await ctx.fs.open(join(ctx.dir, segmentName(seg)), 'update');
  try {
    await fh.chmod(0o600);
    const buf = Buffer.allocUnsafe((await fh.stat()).size - from);
    await readFully(fh, buf, from);
    const { frames, corrupt, end } = scanFrames(buf);
    for (const region of corrupt) {
      if (fedFrom(ctx, seg, from + region.offset)) ctx.corrupt({ segment: seg, offset: from + region.offset, bytes: region.bytes });
      index.corrupt.push([from + region.offset, region.bytes]);
    }
    const reader = new ByteReader();
    for (const f of frames) {
      const payload = buf.subarray(f.offset + HEADER_BYTES, f.offset + HEADER_BYTES + f.length);
      const loc = { segment: seg, offset: from + f.offset, length: f.length };
      const fed = fedFrom(ctx, seg, loc.offset);
      if (fed) options.onRecord?.(f.type, payload, loc);
      if (!ctx.indexing) continue;
      const entry = options.summarize!(f.type, payload, loc);
      index.push(f.type, loc.offset, f.length, entry);
      if (fed) options.onEntry?.(f.type, reader.at(entry), loc);
    }
    index.bytes = from + end;
    if (end < buf.length) {
      await fh.truncate(from + end);
      await fh.datasync();
      options.onTruncate?.({ segment: seg, offset: from + end, dropped: buf.length - end, sealed: !current });
    }
  } finally {
    await fh.close();
  }
}
