// The journal's shapes that its readers share (where a record is, what it is opened with, what it
// reports), apart from the Journal class so journalLoad.ts and recordReader.ts import them without
// importing the journal that imports them. journal.ts re-exports them.
import type { ByteReader } from '../base/bytes';
import type { JournalFs } from './journalFs';

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
  /** Journal.openTail(): the last segment's records, read before the rest (Journal.loadRest feeds them to onEntry again, in order). */
  onTailEntry?: (type: number, entry: ByteReader, loc: RecordLocation) => void;
  /**
   * Told about truncated tails (segment, offset, bytes dropped). `sealed`: not the newest segment,
   * where no write was in progress, so the cut is damage, not a torn write.
   */
  onTruncate?: (info: TruncatedTail) => void;
  /** Told about damaged regions in the middle of a segment (skipped; later records are kept). */
  onCorrupt?: (info: CorruptRegion) => void;
  /**
   * Told before a sealed segment is read in full because it has no valid index file (the first
   * start after an upgrade, a kill between sealing and indexing, a damaged index): the slow case.
   */
  onRebuild?: (info: { segment: number; bytes: number }) => void;
  /** Longest a lazy append waits for another append's sync before it gets one of its own (default 10 ms). */
  lazyMs?: number;
  /** The file operations (tests inject failures here); default node:fs. */
  fs?: JournalFs;
  /** Told about a write the journal could work around: a segment it could not start, an index file it could not write. */
  onProblem?: (line: string) => void;
  /** Told after each group commit: records and bytes in the batch, the write's and the fdatasync's time (the metrics). */
  onSync?: (batch: SyncedBatch) => void;
}

export interface TruncatedTail {
  segment: number;
  offset: number;
  dropped: number;
  sealed: boolean;
}

export interface SyncedBatch {
  records: number;
  bytes: number;
  writeMs: number;
  syncMs: number;
}

export interface CorruptRegion {
  segment: number;
  offset: number;
  bytes: number;
}
