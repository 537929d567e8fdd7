// What the index keeps of a delivery and what it hands out: the fields of a delivery and of a
// forward state as recorded (also the entries of a segment index file, ./indexEntries.ts), where a
// backend keeps the record, and a row whose summary and attempts are built when first read.
import type { ForwardAttempt, ForwardStatus, RelayDeliverySummary, Verification } from '../../../src/core/relay/protocol';
import type { RecordLocation } from '../journal/journal';

/** A target's new forward state, as recorded with an attempt. */
export interface StateFields {
  target: string;
  status: ForwardStatus;
  lastStatus?: number;
  attempts: number;
  nextAttemptMs?: number;
}

/** What the index keeps of a delivery (also its entry in a segment index file). */
export interface IndexedDelivery {
  seq: number;
  receivedMs: number;
  channel: string;
  /** The API channel's generation (../base/channelKey.ts). */
  gen?: string;
  verification: Verification;
  reason?: string;
  event?: string;
  deliveryId?: string;
  /** The delivery id as UTF-8 bytes instead of `deliveryId` (read from an index file: no string made). */
  deliveryIdUtf8?: Uint8Array;
  /** The meta's bytes in the file journal's record (its index entry keeps it); 0 from other logs. The index keeps the body size instead. */
  metaLength: number;
  targets: string[];
  /** Set when only a prefix of the body is stored (a rejected delivery): what was received. */
  received?: { size: number; sha256: string };
}

/** Where a backend keeps a delivery's record, kept in the index for it (the file journal: segment, offset, length). */
export type RecordRef = RecordLocation;

/** The ref of a backend that reads records by seq alone. */
export const NO_REF: RecordRef = Object.freeze({ segment: 0, offset: 0, length: 0 });

export interface IndexRow {
  seq: number;
  summary: RelayDeliverySummary;
  attempts: ForwardAttempt[];
  receivedMs: number;
  /** Where the backend keeps its record (NO_REF for a backend that reads by seq). */
  loc: RecordRef;
  /** Body bytes stored. */
  size: number;
  /** Its channel's identity (../base/channelKey.ts). */
  readonly channelKey: string;
}

/** What a LazyRow reads its row from (the CompactIndex). */
export interface RowSource {
  find(seq: number): number;
  summary(i: number): RelayDeliverySummary;
  attemptsAt(i: number): ForwardAttempt[];
  channelKeyAt(i: number): string;
}

/**
 * A row as handed out: where its record is at once; its summary and attempts built on first read,
 * from the index as it is then (callers read them right away), and kept.
 */
export class LazyRow implements IndexRow {
  private builtSummary: RelayDeliverySummary | undefined;
  private builtAttempts: ForwardAttempt[] | undefined;

  constructor(
    private readonly index: RowSource,
    readonly seq: number,
    readonly receivedMs: number,
    readonly loc: RecordRef,
    readonly size: number,
  ) {}

  get summary(): RelayDeliverySummary {
    return (this.builtSummary ??= this.index.summary(this.rowIndex()));
  }

  get attempts(): ForwardAttempt[] {
    return (this.builtAttempts ??= this.index.attemptsAt(this.rowIndex()));
  }

  get channelKey(): string {
    return this.index.channelKeyAt(this.rowIndex());
  }

  private rowIndex(): number {
    const i = this.index.find(this.seq);
    if (i < 0) throw new Error(`delivery ${this.seq} was pruned before its row was read`);
    return i;
  }
}
