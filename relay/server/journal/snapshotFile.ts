// The index snapshot file (index-snapshot.bin, issue 40): the store's whole loaded state at a
// journal position P, as the parts of an image (../base/imageParts.ts), so a restart makes a few
// large reads instead of decoding millions of index entries. Written to a temporary file,
// fsynced, renamed, the directory fsynced (as ./segmentIndex.ts writes index files), 0600.
//
// Header, little-endian:
//   u32 magic "SHSN" | u32 format 1 | f64 P segment | f64 P offset
//   | the fingerprint, the last record before P: f64 segment | f64 offset | u32 payload length
//   | u32 its crc32 as its header holds it | u32 type | u32 parts n | f64 body bytes
//   | n × (u32 kind | u32 element bytes | f64 byte length | u32 crc32 of the part | u32 0)
//   | u32 crc32(header so far)
// then the parts, one after another. Each part is checked against its crc before it is used.
import { join } from 'node:path';
import { crc32 } from '../base/crc32';
import type { ImagePart, ImageReader } from '../base/imageParts';
import { crcOf, PartsReader } from '../base/partsReader';
import { EndOfFileError, readFully, type JournalFile, type JournalFs } from './journalFs';
import { HEADER_BYTES } from './journalScan';
import type { RecordLocation } from './journalTypes';

export const SNAPSHOT_FILE = 'index-snapshot.bin';
const MAGIC = 0x4e534853; // "SHSN" little-endian
const FORMAT = 1;
const FIXED = 64;
const PART = 24;

/** A place in the journal: records before it are in the snapshot, records from it on are not. */
export interface JournalPosition {
  segment: number;
  offset: number;
}

/** The last record before P, as its header holds it: a snapshot of another journal, or of one rewritten since, does not match it. */
export interface Fingerprint extends RecordLocation {
  crc: number;
  type: number;
}

export interface SnapshotHead {
  at: JournalPosition;
  fingerprint: Fingerprint;
}

interface Directory extends SnapshotHead {
  parts: { kind: number; elementBytes: number; bytes: number; crc: number }[];
  start: number;
}

/** The fingerprint of the record at `loc` (reads its 9-byte header), or undefined when it is not there. */
export async function fingerprintOf(fs: JournalFs, dir: string, segmentFile: string, loc: RecordLocation): Promise<Fingerprint | undefined> {
  const head = Buffer.alloc(HEADER_BYTES);
  let fh: JournalFile | undefined;
  try {
    fh = await fs.open(join(dir, segmentFile), 'read');
    await readFully(fh, head, loc.offset);
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
  if (head.readUInt32LE(0) !== loc.length) return undefined;
  return { ...loc, crc: head.readUInt32LE(4), type: head[8]! };
}

function encodeHeader(head: SnapshotHead, parts: ImagePart[], crcs: number[]): Buffer {
  const h = Buffer.alloc(FIXED + PART * parts.length + 4);
  const f = head.fingerprint;
  h.writeUInt32LE(MAGIC, 0);
  h.writeUInt32LE(FORMAT, 4);
  h.writeDoubleLE(head.at.segment, 8);
  h.writeDoubleLE(head.at.offset, 16);
  h.writeDoubleLE(f.segment, 24);
  h.writeDoubleLE(f.offset, 32);
  h.writeUInt32LE(f.length, 40);
  h.writeUInt32LE(f.crc, 44);
  h.writeUInt32LE(f.type, 48);
  h.writeUInt32LE(parts.length, 52);
  h.writeDoubleLE(
    parts.reduce((n, p) => n + p.bytes.length, 0),
    56,
  );
  parts.forEach((p, i) => {
    const at = FIXED + PART * i;
    h.writeUInt32LE(p.kind, at);
    h.writeUInt32LE(p.elementBytes, at + 4);
    h.writeDoubleLE(p.bytes.length, at + 8);
    h.writeUInt32LE(crcs[i]!, at + 16);
  });
  h.writeUInt32LE(crc32(h.subarray(0, h.length - 4)), h.length - 4);
  return h;
}

export interface WriteSnapshotOptions {
  /** Test only: awaited once half the parts are in the temporary file (a test kills the process then). */
  hold?: () => Promise<void>;
}

/** Writes the snapshot: parts to a temporary file, then the header, fsync, rename, directory fsync. */
export async function writeSnapshot(fs: JournalFs, dir: string, head: SnapshotHead, parts: ImagePart[], options: WriteSnapshotOptions = {}): Promise<number> {
  const final = join(dir, SNAPSHOT_FILE);
  const tmp = `${final}.tmp`;
  const fh = await fs.open(tmp, 'create');
  const crcs: number[] = [];
  let position = FIXED + PART * parts.length + 4;
  try {
    await fh.chmod(0o600);
    for (const [i, part] of parts.entries()) {
      const bytes = Buffer.from(part.bytes.buffer, part.bytes.byteOffset, part.bytes.byteLength);
      crcs.push(await crcOf(bytes));
      await writeAll(fh, bytes, position);
      position += bytes.length;
      if (i === Math.floor(parts.length / 2)) await options.hold?.();
    }
    await writeAll(fh, encodeHeader(head, parts, crcs), 0);
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, final);
  await fs.syncDir(dir);
  return position;
}

async function writeAll(fh: JournalFile, bytes: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += (await fh.write(bytes, done, bytes.length - done, position + done)).bytesWritten;
}

function decodeDirectory(buf: Buffer): Directory | string {
  if (buf.length < FIXED + 4) return 'shorter than its header';
  if (buf.readUInt32LE(0) !== MAGIC) return 'not a snapshot file';
  if (buf.readUInt32LE(4) !== FORMAT) return `format ${buf.readUInt32LE(4)}, not ${FORMAT}`;
  const n = buf.readUInt32LE(52);
  const start = FIXED + PART * n + 4;
  if (start > buf.length || crc32(buf.subarray(0, start - 4)) !== buf.readUInt32LE(start - 4)) return 'its header does not check out';
  const parts: Directory['parts'] = [];
  for (let i = 0; i < n; i++) {
    const at = FIXED + PART * i;
    parts.push({ kind: buf.readUInt32LE(at), elementBytes: buf.readUInt32LE(at + 4), bytes: buf.readDoubleLE(at + 8), crc: buf.readUInt32LE(at + 16) });
  }
  return {
    at: { segment: buf.readDoubleLE(8), offset: buf.readDoubleLE(16) },
    fingerprint: {
      segment: buf.readDoubleLE(24),
      offset: buf.readDoubleLE(32),
      length: buf.readUInt32LE(40),
      crc: buf.readUInt32LE(44),
      type: buf.readUInt32LE(48),
    },
    parts,
    start,
  };
}

/** An opened snapshot: its head, and its parts to read (close it after). */
export interface OpenedSnapshot {
  head: SnapshotHead;
  reader: ImageReader;
  close(): Promise<void>;
}

/** Opens the snapshot file and checks its header; a string says why it cannot be used (undefined: there is none). */
export async function openSnapshot(fs: JournalFs, dir: string): Promise<OpenedSnapshot | string | undefined> {
  let fh: JournalFile;
  try {
    fh = await fs.open(join(dir, SNAPSHOT_FILE), 'read');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : (err as Error).message;
  }
  try {
    const size = (await fh.stat()).size;
    const first = Buffer.alloc(Math.min(size, 64 * 1024));
    await readFully(fh, first, 0);
    let dir = decodeDirectory(first);
    if (typeof dir !== 'string' || first.length === size) return await opened(fh, dir, size);
    // a directory beyond the first read (thousands of parts: not written today)
    const whole = Buffer.alloc(Math.min(size, FIXED + PART * first.readUInt32LE(52) + 4));
    await readFully(fh, whole, 0);
    dir = decodeDirectory(whole);
    return await opened(fh, dir, size);
  } catch (err) {
    await fh.close();
    return err instanceof EndOfFileError ? 'shorter than its header says' : (err as Error).message;
  }
}

async function opened(fh: JournalFile, dir: Directory | string, size: number): Promise<OpenedSnapshot | string> {
  if (typeof dir === 'string' || dir.start + dir.parts.reduce((n, p) => n + p.bytes, 0) !== size) {
    await fh.close();
    return typeof dir === 'string' ? dir : 'its size does not match its header (cut short?)';
  }
  return { head: { at: dir.at, fingerprint: dir.fingerprint }, reader: fileReader(fh, dir), close: () => fh.close() };
}

/** Reads parts from the file in order (../base/partsReader.ts), from the first part's position on. */
function fileReader(fh: JournalFile, dir: Directory): ImageReader {
  let position = dir.start;
  return new PartsReader(dir.parts, async (buf) => {
    await readFully(fh, buf, position);
    position += buf.length;
  });
}
