// A segment's index file (journal-N.idx), binary (format 3): a header, then the body — the
// segment's index records as ./indexBuffer.ts lays them out (type, offset, payload length, the
// store's entry bytes; never a body). A restart reads these instead of the segments; an index
// that is missing, damaged, of another format (the JSON files of format 2), or written for a
// different segment is rebuilt from its segment; one covering a prefix (a checkpoint) is
// completed by scanning the rest. Written to a temporary file, fsynced, renamed, and the
// directory fsynced.
//
// Header, little-endian:
//   u32 magic "SHIX" | u32 format 3 | f64 segment | f64 bytes covered | u32 record count
//   | u32 corrupt regions n | f64 body length | u32 crc32(body) | n × (f64 offset, f64 bytes)
//   | u32 crc32(header so far)
import { join } from 'node:path';
import { crc32 } from '../base/crc32';
import { wellFormed, type IndexSnapshot } from './indexBuffer';
import { EndOfFileError, readFully, type JournalFs } from './journalFs';

const MAGIC = 0x58494853; // "SHIX" little-endian
const VERSION = 3;
const FIXED = 44;

/** What an index file's header says of its body: bytes of the segment covered, records, crc32. */
export interface IndexHead {
  bytes: number;
  count: number;
  crc: number;
}

/** The header of a segment's index file when it checks out (an index snapshot compares it with what it was taken with). */
export async function readIndexHead(fs: JournalFs, dir: string, segment: number): Promise<IndexHead | undefined> {
  try {
    const fh = await fs.open(join(dir, indexName(segment)), 'read');
    try {
      const buf = Buffer.alloc(4096);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const h = decodeHeader(buf.subarray(0, bytesRead));
      return h && h.segment === segment ? { bytes: h.bytes, count: h.count, crc: h.crc } : undefined;
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

export function indexName(segment: number): string {
  return `journal-${String(segment).padStart(10, '0')}.idx`;
}

function headerBytes(corrupt: number): number {
  return FIXED + 16 * corrupt + 4;
}

export function encodeHeader(index: IndexSnapshot): Buffer {
  const h = Buffer.allocUnsafe(headerBytes(index.corrupt.length));
  h.writeUInt32LE(MAGIC, 0);
  h.writeUInt32LE(VERSION, 4);
  h.writeDoubleLE(index.segment, 8);
  h.writeDoubleLE(index.bytes, 16);
  h.writeUInt32LE(index.count, 24);
  h.writeUInt32LE(index.corrupt.length, 28);
  h.writeDoubleLE(index.body.length, 32);
  h.writeUInt32LE(index.crc, 40);
  index.corrupt.forEach(([offset, bytes], i) => {
    h.writeDoubleLE(offset, FIXED + 16 * i);
    h.writeDoubleLE(bytes, FIXED + 16 * i + 8);
  });
  h.writeUInt32LE(crc32(h.subarray(0, h.length - 4)), h.length - 4);
  return h;
}

/** The header's fields if it checks out (magic, format, its own crc); undefined otherwise. */
function decodeHeader(buf: Buffer): (Omit<IndexSnapshot, 'body'> & { start: number; bodyLength: number }) | undefined {
  if (buf.length < headerBytes(0) || buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(4) !== VERSION) return undefined;
  const n = buf.readUInt32LE(28);
  const start = headerBytes(n);
  if (start > buf.length || crc32(buf.subarray(0, start - 4)) !== buf.readUInt32LE(start - 4)) return undefined;
  const corrupt: [number, number][] = [];
  for (let i = 0; i < n; i++) corrupt.push([buf.readDoubleLE(FIXED + 16 * i), buf.readDoubleLE(FIXED + 16 * i + 8)]);
  return {
    segment: buf.readDoubleLE(8),
    bytes: buf.readDoubleLE(16),
    count: buf.readUInt32LE(24),
    corrupt,
    bodyLength: buf.readDoubleLE(32),
    crc: buf.readUInt32LE(40),
    start,
  };
}

/**
 * The index in `buf`, or undefined when it does not check out (then the segment is scanned). An
 * index covering less than the segment (a checkpoint of the then current segment) is valid: the
 * rest is scanned.
 */
export function decodeIndex(buf: Buffer, segment: number, segmentBytes: number): IndexSnapshot | undefined {
  const h = decodeHeader(buf);
  if (!h || h.segment !== segment || h.bytes > segmentBytes || h.bodyLength !== buf.length - h.start) return undefined;
  const body = buf.subarray(h.start);
  if (crc32(body) !== h.crc || !wellFormed(body, h.count, h.bytes)) return undefined;
  return { segment, bytes: h.bytes, count: h.count, corrupt: h.corrupt, crc: h.crc, body };
}

/**
 * Reads an index file (in one read into one buffer) and checks it; undefined when missing or bad.
 * `buffer(size)` gives the buffer to read into (one reused for every file of an open: no garbage
 * of a megabyte or two per file); the result's body is a view of it.
 */
export async function readIndex(
  fs: JournalFs,
  dir: string,
  segment: number,
  segmentBytes: number,
  buffer: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
): Promise<IndexSnapshot | undefined> {
  let fh;
  try {
    fh = await fs.open(join(dir, indexName(segment)), 'read');
  } catch {
    return undefined;
  }
  try {
    const buf = buffer((await fh.stat()).size);
    try {
      await readFully(fh, buf, 0);
    } catch (err) {
      if (err instanceof EndOfFileError) return undefined; // shorter than its size said: as bad as damaged
      throw err;
    }
    return decodeIndex(buf, segment, segmentBytes);
  } finally {
    await fh.close();
  }
}

export async function writeIndex(fs: JournalFs, dir: string, index: IndexSnapshot): Promise<void> {
  const final = join(dir, indexName(index.segment));
  const tmp = `${final}.tmp`;
  const fh = await fs.open(tmp, 'create');
  try {
    let position = 0;
    for (const part of [encodeHeader(index), index.body]) {
      let done = 0;
      while (done < part.length) done += (await fh.write(part, done, part.length - done, position + done)).bytesWritten;
      position += part.length;
    }
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, final);
  await fs.syncDir(dir);
}
