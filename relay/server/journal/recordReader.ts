// One journal record read in order, part by part, for records too large to hold whole (a 25 MB
// delivery streamed to a subscriber): the frame's length is checked at open and its checksum as
// the last part is read, so a damaged record throws JournalCorruptError before its end is given
// out (a subscriber's message is then cut off instead of completed with wrong bytes).
import { crc32 } from '../base/crc32';
import { JournalCorruptError } from './journalErrors';
import { readFully, type JournalFile } from './journalFs';
import { HEADER_BYTES } from './journalScan';
import type { RecordLocation } from './journalTypes';

export class RecordReader {
  private pos = 0;

  private constructor(
    private readonly file: JournalFile,
    private readonly loc: RecordLocation,
    private readonly expected: number,
    private crc: number,
  ) {}

  static async open(file: JournalFile, loc: RecordLocation): Promise<RecordReader> {
    const head = Buffer.allocUnsafe(HEADER_BYTES);
    await readFully(file, head, loc.offset).catch((err: unknown) => {
      throw new JournalCorruptError(loc.segment, loc.offset, (err as Error).message);
    });
    if (head.readUInt32LE(0) !== loc.length) throw new JournalCorruptError(loc.segment, loc.offset, 'record length does not match the index');
    return new RecordReader(file, loc, head.readUInt32LE(4), crc32(head.subarray(8, 9)));
  }

  /** Payload bytes not read yet. */
  get remaining(): number {
    return this.loc.length - this.pos;
  }

  /** The next `max` bytes of the payload (fewer at its end); the last part is checked against the record's checksum. */
  async next(max: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(max, this.remaining)));
    await readFully(this.file, buf, this.loc.offset + HEADER_BYTES + this.pos).catch((err: unknown) => {
      throw new JournalCorruptError(this.loc.segment, this.loc.offset, (err as Error).message);
    });
    this.pos += buf.length;
    this.crc = crc32(buf, this.crc);
    if (this.remaining === 0 && this.crc !== this.expected) throw new JournalCorruptError(this.loc.segment, this.loc.offset, 'checksum mismatch');
    return buf;
  }
}
