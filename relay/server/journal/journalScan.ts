// Reading a segment's frames back: u32 LE payload length | u32 LE crc32(type + payload) | u8 type
// | payload. A frame that does not check out is either a torn tail (no valid frame follows: the
// write never completed, so nothing after it was acknowledged) or corruption in the middle (a
// valid frame follows): then the scan resynchronises on the next valid frame and keeps every
// later record, reporting the skipped region.
import { crc32 } from '../base/crc32';

export const HEADER_BYTES = 9;

/** crc32 of each record type byte, the start of every record's checksum (computed once per type). */
const TYPE_CRC: number[] = [];
export function typeCrc(type: number): number {
  return (TYPE_CRC[type] ??= crc32(Buffer.of(type)));
}

export interface Frame {
  type: number;
  /** Offset of the frame header. */
  offset: number;
  /** Payload length. */
  length: number;
}

export interface Region {
  offset: number;
  bytes: number;
}

export interface ScanResult {
  frames: Frame[];
  /** Skipped regions between valid frames (each holds at least one damaged record). */
  corrupt: Region[];
  /** Where the valid data ends: bytes past it are a torn tail. */
  end: number;
}

/** The frame at `offset` if its header and checksum check out. */
export function frameAt(buf: Buffer, offset: number): Frame | undefined {
  if (buf.length - offset < HEADER_BYTES) return undefined;
  const length = buf.readUInt32LE(offset);
  const type = buf[offset + 8]!;
  if (type === 0 || length > buf.length - offset - HEADER_BYTES) return undefined;
  const sum = crc32(buf.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length), crc32(buf.subarray(offset + 8, offset + 9)));
  return sum === buf.readUInt32LE(offset + 4) ? { type, offset, length } : undefined;
}

/**
 * The offset of the next valid frame after a bad one at `bad`: first where the bad frame's own
 * length points (a damaged payload or checksum), else the first offset that holds a valid frame.
 */
function resync(buf: Buffer, bad: number): number | undefined {
  if (buf.length - bad >= HEADER_BYTES) {
    const next = bad + HEADER_BYTES + buf.readUInt32LE(bad);
    if (next < buf.length && frameAt(buf, next)) return next;
  }
  for (let p = bad + 1; p + HEADER_BYTES <= buf.length; p++) {
    // Cheap rejections first: a zero type, or a length past the end.
    if (buf[p + 8] === 0 || buf.readUInt32LE(p) > buf.length - p - HEADER_BYTES) continue;
    if (frameAt(buf, p)) return p;
  }
  return undefined;
}

export function scanFrames(buf: Buffer, from = 0): ScanResult {
  const frames: Frame[] = [];
  const corrupt: Region[] = [];
  let offset = from;
  while (offset < buf.length) {
    const frame = frameAt(buf, offset);
    if (frame) {
      frames.push(frame);
      offset += HEADER_BYTES + frame.length;
      continue;
    }
    const next = resync(buf, offset);
    if (next === undefined) break;
    corrupt.push({ offset, bytes: next - offset });
    offset = next;
  }
  return { frames, corrupt, end: offset };
}
