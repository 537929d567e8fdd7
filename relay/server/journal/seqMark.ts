// The seq high-water mark: a 16-byte file ("SHSQ", f64 LE seq, crc32) fsynced before any seq above
// it is acknowledged, so a seq once given out is never given out again, even when the records
// that held it are gone (a damaged last record, pruned segments). Marks are reserved in blocks
// (one fdatasync per `block` seqs); a clean close writes the exact last seq, so only a crash
// leaves a gap (of at most `block`) in the numbering.
import { join } from 'node:path';
import { crc32 } from '../base/crc32';
import type { JournalFile, JournalFs } from './journalFs';

const MAGIC = 0x51534853; // "SHSQ" little-endian
export const SEQ_FILE = 'seq';

function encode(value: number): Buffer {
  const buf = Buffer.alloc(16);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeDoubleLE(value, 4);
  buf.writeUInt32LE(crc32(buf.subarray(0, 12)), 12);
  return buf;
}

function decode(buf: Buffer): number | undefined {
  if (buf.length < 16 || buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(12) !== crc32(buf.subarray(0, 12))) return undefined;
  const value = buf.readDoubleLE(4);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export class SeqMark {
  private chain: Promise<void> = Promise.resolve();
  /** Highest seq covered by a mark write started (durable once `chain` settles). */
  private reservedUpTo: number;

  private constructor(
    private readonly fh: JournalFile,
    /** The mark found at open (0 when there was none or it was damaged). */
    readonly found: number,
    /** True when the file existed but did not check out. */
    readonly damaged: boolean,
    private readonly block: number,
  ) {
    this.reservedUpTo = found;
  }

  static async open(dir: string, fs: JournalFs, options: { block?: number } = {}): Promise<SeqMark> {
    const path = join(dir, SEQ_FILE);
    let fh: JournalFile;
    try {
      fh = await fs.open(path, 'update');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      fh = await fs.open(path, 'create');
      await fh.write(encode(0), 0, 16, 0);
      await fh.datasync();
      await fs.syncDir(dir);
    }
    await fh.chmod(0o600);
    const size = (await fh.stat()).size;
    const buf = Buffer.alloc(Math.min(size, 16));
    if (buf.length > 0) await fh.read(buf, 0, buf.length, 0);
    const value = decode(buf);
    return new SeqMark(fh, value ?? 0, value === undefined && size > 0, options.block ?? 1024);
  }

  private write(value: number): Promise<void> {
    const next = this.chain
      .catch(() => undefined)
      .then(async () => {
        await this.fh.write(encode(value), 0, 16, 0);
        await this.fh.datasync();
      });
    this.chain = next;
    return next;
  }

  /** Resolves once `seq` is at or below the durable mark (reserving the next block when needed). */
  cover(seq: number): Promise<void> {
    if (seq <= this.reservedUpTo) return this.chain;
    const before = this.reservedUpTo;
    const upTo = seq + this.block - 1;
    this.reservedUpTo = upTo;
    const written = this.write(upTo);
    written.catch(() => {
      // Not durable: the next seq tries again.
      if (this.reservedUpTo === upTo) this.reservedUpTo = before;
    });
    return written;
  }

  /** Closes the file without writing (a kill, for tests). */
  async release(): Promise<void> {
    await this.chain.catch(() => undefined);
    await this.fh.close();
  }

  /** Writes the exact last seq (no reserved gap for the next start) and closes the file. */
  async close(lastSeq: number): Promise<void> {
    try {
      await this.write(lastSeq);
    } finally {
      await this.fh.close();
    }
  }
}
