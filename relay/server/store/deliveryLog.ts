// The seam between the relay and a storage backend: a log of delivery and attempt records. What
// differs per backend (append, read by seq, follow, record an attempt, retention, health) is a
// DeliveryLog; the index the relay queries (lists, counts, pending forwards, events) is built over
// it once, by LogStore (./logStore.ts). A backend feeds every record it holds or learns of into
// the LogSink it is opened with, and the store answers every query from there.
// How to add a backend: docs/store-backends.md.
import type { ForwardAttempt, ForwardState } from '../../../src/core/relay/protocol';
import type { AttemptFields, IndexedDelivery, IndexRow, RecordRef, StateFields } from '../deliveryIndex/compactIndex';
import type { ImageReader, ImageWriter } from '../base/imageParts';
import type { BodyReader, DeliveryMeta, NewDelivery, RecordAttemptOptions, StoreHealth, StoreIntegrity } from '../base/storeTypes';

export type { RecordRef } from '../deliveryIndex/compactIndex';

/** Where the records a log holds (at open, and appended later, by this process or another) go. */
export interface LogSink {
  /**
   * A delivery record, in seq order (an older or repeated seq is ignored): `size` body bytes, and
   * where the backend keeps it (`ref`, handed back to read(); omit it when the log reads by seq).
   * Pass the DeliveryMeta; the file journal passes the compact form it decodes from its index.
   */
  delivery(d: DeliveryMeta | IndexedDelivery, size: number, ref?: RecordRef): void;
  /** A forward attempt of delivery `seq`, and the target's new state (none for a replay to another URL). */
  attempt(seq: number, attempt: ForwardAttempt, state?: ForwardState): void;
  /** attempt() in the compact form the file journal decodes at open; the objects are reused after the call (copy what is kept). */
  attemptFields(seq: number, attempt: AttemptFields, state?: StateFields): void;
  /** Every delivery below `minSeq` is gone (pruned, or removed by the backend's own limits). */
  dropBelow(minSeq: number): void;
  /** Every rejected delivery with seq <= `upTo` is gone (the rejected deliveries' own retention). */
  hideRejectedUpTo(upTo: number): void;
  /**
   * Writes what the records fed so far made of the sink (an index snapshot: ../base/imageParts.ts),
   * copied; false, writing nothing, when it holds something that is not yet theirs alone (an
   * attempt waiting for its delivery).
   */
  save(w: ImageWriter): boolean;
  /**
   * Reads what save() wrote (throws ImageError when it does not fit); the function returned puts
   * it in place of the sink's state, before any record is fed.
   */
  restore(r: ImageReader): Promise<() => void>;
}

/** An attempt to record, with the channel of its delivery when the index knows it. */
export interface AttemptToRecord {
  seq: number;
  attempt: ForwardAttempt;
  state?: ForwardState;
  channel?: string;
}

/** A delivery's headers and body as a log reads them back. */
export interface ReadRecord {
  meta: DeliveryMeta;
  body: Buffer;
}

export interface DeliveryLog {
  /** 'file', 'jetstream', 'memory', …: what the metrics and the start-up log call the backend. */
  readonly kind: string;
  /** The highest seq ever given out (never reused, even after its delivery is gone). */
  readonly lastSeq: number;
  /**
   * Feeds `sink` every record the log holds, in seq order, and resolves once it has; afterwards
   * feeds it the records appended (by this process, or by another one on a shared log: follow).
   */
  open(sink: LogSink): Promise<void>;
  /** Instead of open(): opens for appends first (their records are fed after what the log held), ... */
  openTail?(sink: LogSink): Promise<void>;
  /** ... then feeds what the log held, and what was appended meanwhile, to the sink. */
  loadRest?(): Promise<void>;
  /**
   * Stores a delivery: the seq at once when the log assigns it (0 when it comes with durability,
   * as on JetStream), and `durable`, resolving to the stored meta once it is safe. The record
   * reaches the sink before `durable` resolves (or soon after, on a log that follows a stream).
   */
  append(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<DeliveryMeta> };
  /** A delivery's headers and body by seq (`row`: its index row, when indexed), or undefined when it is gone. */
  read(seq: number, row: IndexRow | undefined): Promise<ReadRecord | undefined>;
  /** The body in parts, without holding it whole (optional: without it, bodies are read whole). */
  openBody?(seq: number, row: IndexRow | undefined): Promise<BodyReader | undefined>;
  /** Stores an attempt; it reaches the sink (attempt()) before the promise resolves. */
  recordAttempt(rec: AttemptToRecord, options?: RecordAttemptOptions): Promise<void>;
  /** Removes every delivery below `minSeq` (and its attempts); calls sink.dropBelow(minSeq). */
  prune(minSeq: number): Promise<void>;
  /** Removes the rejected deliveries with seq <= `upTo`; calls sink.hideRejectedUpTo(upTo). Optional: without it, rejected deliveries stay until pruned. */
  dropRejected?(upTo: number): Promise<void>;
  health(): StoreHealth;
  integrity(): StoreIntegrity;
  close(): Promise<void>;
}
