// A sealed segment's index file (journal-N.idx): one line of header — format version, segment,
// the segment's size in bytes when indexed, damaged regions, a crc32 of the body — then the body:
// a JSON array of [type, offset, length, entry] per record, where `entry` is what the store keeps
// in memory for that record (never a body). A restart reads these instead of the segments; an
// index that is missing, damaged or written for a different segment size is rebuilt from its
// segment; one covering a prefix (a checkpoint) is completed by scanning the rest. Written to a temporary file, fsynced, renamed, and the directory fsynced.
import { join } from 'node:path';
import { crc32 } from './crc32';
import type { JournalFs } from './journalFs';

export type IndexedRecord = [type: number, offset: number, length: number, entry: unknown];

export interface SegmentIndex {
  segment: number;
  /** Size of the segment file the index describes. */
  bytes: number;
  /** Damaged regions skipped when the segment was scanned: [offset, bytes]. */
  corrupt: [number, number][];
  records: IndexedRecord[];
}

const VERSION = 2;

export function indexName(segment: number): string {
  return `journal-${String(segment).padStart(10, '0')}.idx`;
}

/**
 * Entries are stored with each distinct string once: strings inside entry arrays (at any depth)
 * become -(k+1) for the k-th string of the table, so entries must hold no negative numbers.
 * (A smaller file, and far less to parse and collect at a restart.)
 */
function pack(records: IndexedRecord[]): { strings: string[]; records: unknown[] } {
  const ids = new Map<string, number>();
  const strings: string[] = [];
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let id = ids.get(v);
      if (id === undefined) ids.set(v, (id = strings.push(v) - 1));
      return -(id + 1);
    }
    return Array.isArray(v) ? v.map(walk) : v;
  };
  return { strings, records: records.map(([type, offset, length, entry]) => [type, offset, length, walk(entry)]) };
}

function unpack(body: { strings: string[]; records: IndexedRecord[] }): IndexedRecord[] {
  const { strings } = body;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'number') return v < 0 ? strings[-v - 1] : v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = walk(v[i]);
    }
    return v;
  };
  for (const r of body.records) r[3] = walk(r[3]);
  return body.records;
}

export function encodeIndex(index: SegmentIndex): Buffer {
  const body = Buffer.from(JSON.stringify(pack(index.records)), 'utf8');
  const header = JSON.stringify({ v: VERSION, segment: index.segment, bytes: index.bytes, corrupt: index.corrupt, count: index.records.length, crc: crc32(body) });
  return Buffer.concat([Buffer.from(`${header}\n`, 'utf8'), body]);
}

/**
 * The index in `buf`, or undefined when it does not check out (then the segment is scanned). An
 * index covering less than the segment (a checkpoint of the then current segment) is valid: the
 * rest is scanned.
 */
export function decodeIndex(buf: Buffer, segment: number, segmentBytes: number): SegmentIndex | undefined {
  const nl = buf.indexOf(10);
  if (nl < 0) return undefined;
  try {
    const h = JSON.parse(buf.subarray(0, nl).toString('utf8')) as { v: number; segment: number; bytes: number; corrupt: [number, number][]; count: number; crc: number };
    const body = buf.subarray(nl + 1);
    if (h.v !== VERSION || h.segment !== segment || h.bytes > segmentBytes || crc32(body) !== h.crc) return undefined;
    const packed = JSON.parse(body.toString('utf8')) as { strings: string[]; records: IndexedRecord[] };
    if (!Array.isArray(packed.records) || packed.records.length !== h.count) return undefined;
    const records = unpack(packed);
    return { segment, bytes: h.bytes, corrupt: h.corrupt ?? [], records };
  } catch {
    return undefined;
  }
}

export async function readIndex(fs: JournalFs, dir: string, segment: number, segmentBytes: number): Promise<SegmentIndex | undefined> {
  let fh;
  try {
    fh = await fs.open(join(dir, indexName(segment)), 'read');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.allocUnsafe((await fh.stat()).size);
    let done = 0;
    while (done < buf.length) {
      const { bytesRead } = await fh.read(buf, done, buf.length - done, done);
      if (bytesRead === 0) return undefined;
      done += bytesRead;
    }
    return decodeIndex(buf, segment, segmentBytes);
  } finally {
    await fh.close();
  }
}

export async function writeIndex(fs: JournalFs, dir: string, index: SegmentIndex): Promise<void> {
  const final = join(dir, indexName(index.segment));
  const tmp = `${final}.tmp`;
  const bytes = encodeIndex(index);
  const fh = await fs.open(tmp, 'create');
  try {
    let done = 0;
    while (done < bytes.length) done += (await fh.write(bytes, done, bytes.length - done, done)).bytesWritten;
    await fh.datasync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, final);
  await fs.syncDir(dir);
}
