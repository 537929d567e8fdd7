// A segment's index records in one growable buffer, append-only — per record: u8 type | f64
// offset | u32 payload length | u32 entry length | entry bytes — which is, as is, the body of the
// segment's index file: a checkpoint writes a view of it, with its crc32 carried on over the bytes
// added since the last one (nothing is re-encoded). No JS object per record.
import { ByteReader } from '../base/bytes';
import { crc32 } from '../base/crc32';
import { HEADER_BYTES } from './journalScan';

/** Bytes before each record's entry. */
export const RECORD_HEAD = 17;

/** What an index file holds: the body and what its header says about it. */
export interface IndexSnapshot {
  segment: number;
  /** Bytes of the segment the records cover. */
  bytes: number;
  count: number;
  /** Damaged regions skipped when the segment was scanned: [offset, bytes]. */
  corrupt: [number, number][];
  /** crc32 of `body`. */
  crc: number;
  body: Buffer;
}

export class IndexBuffer {
  private buf: Buffer;
  private used = 0;
  private count = 0;
  private crc = 0;
  /** Bytes of `buf` the crc covers. */
  private crcEnd = 0;
  /** Bytes of the segment covered so far. */
  bytes = 0;
  readonly corrupt: [number, number][] = [];

  constructor(
    readonly segment: number,
    capacity = 0,
  ) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** A buffer holding an index file's records, to go on appending to. */
  static from(file: IndexSnapshot): IndexBuffer {
    const b = new IndexBuffer(file.segment, file.body.length + 64 * 1024);
    file.body.copy(b.buf);
    b.used = b.crcEnd = file.body.length;
    b.count = file.count;
    b.crc = file.crc;
    b.bytes = file.bytes;
    b.corrupt.push(...file.corrupt);
    return b;
  }

  push(type: number, offset: number, length: number, entry: Uint8Array): void {
    const need = RECORD_HEAD + entry.length;
    if (this.used + need > this.buf.length) this.grow(need);
    const b = this.buf;
    const at = this.used;
    b[at] = type;
    b.writeDoubleLE(offset, at + 1);
    b.writeUInt32LE(length, at + 9);
    b.writeUInt32LE(entry.length, at + 13);
    b.set(entry, at + RECORD_HEAD);
    this.used = at + need;
    this.count++;
  }

  private grow(need: number): void {
    const next = Buffer.allocUnsafe(Math.max(64 * 1024, this.buf.length * 2, this.used + need));
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  /**
   * The records so far as an index file covering `bytes` of the segment. The body is a view:
   * later pushes write past it (or into a new buffer), never into it.
   */
  snapshot(bytes: number): IndexSnapshot {
    if (this.crcEnd < this.used) {
      this.crc = crc32(this.buf.subarray(this.crcEnd, this.used), this.crc);
      this.crcEnd = this.used;
    }
    return {
      segment: this.segment,
      bytes,
      count: this.count,
      corrupt: this.corrupt.map(([o, n]) => [o, n]),
      crc: this.crc,
      body: this.buf.subarray(0, this.used),
    };
  }
}

/**
 * Whether `body` holds exactly `count` well-formed records, in order, each inside the first
 * `bytes` of the segment (checked before any is handed out, so a bad file feeds nothing).
 */
export function wellFormed(body: Buffer, count: number, bytes: number): boolean {
  let pos = 0;
  let last = -1;
  for (let i = 0; i < count; i++) {
    if (pos + RECORD_HEAD > body.length) return false;
    const offset = body.readDoubleLE(pos + 1);
    const end = offset + HEADER_BYTES + body.readUInt32LE(pos + 9);
    if (body[pos] === 0 || !Number.isSafeInteger(offset) || offset <= last || end > bytes) return false;
    last = offset;
    pos += RECORD_HEAD + body.readUInt32LE(pos + 13);
  }
  return pos === body.length;
}

/** Calls `fn` for each record of a well-formed body; `entry` is one reader, pointed at each entry in turn. */
export function forEachRecord(body: Buffer, fn: (type: number, entry: ByteReader, offset: number, length: number) => void): void {
  const reader = new ByteReader();
  let pos = 0;
  while (pos < body.length) {
    const start = pos + RECORD_HEAD;
    const end = start + body.readUInt32LE(pos + 13);
    fn(body[pos]!, reader.at(body, start, end), body.readDoubleLE(pos + 1), body.readUInt32LE(pos + 9));
    pos = end;
  }
}
