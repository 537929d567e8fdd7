// What the relay's ingress, REST API, subscriber hub and forwarder need from delivery storage.
// DeliveryStore (the file journal) implements it; another backend (e.g. NATS JetStream, issue 15)
// can slot in behind the same interface.
import type { EventEmitter } from 'node:events';
import type {
  ChannelStatus,
  DeliveryListQuery,
  ForwardAttempt,
  ForwardState,
  RelayDelivery,
  RelayDeliverySummary,
  Verification,
} from '../../../src/core/relay/protocol';
import type { DeliveryFilter } from '../../../src/core/relay/deliveryFilter';

/** What ingress records about a received request (the body is stored beside it). */
export interface DeliveryMeta {
  seq: number;
  channel: string;
  /** The generation of an API channel (relay/server/base/channelKey.ts); absent for other channels. */
  gen?: string;
  receivedAt: string;
  verification: Verification;
  reason?: string;
  /** Raw header pairs in arrival order, names as sent. */
  headers: [string, string][];
  targets: string[];
  /** Set when only a prefix of the body is stored (a rejected delivery, ./rejected.ts): what was received. */
  received?: { size: number; sha256: string };
}

export type NewDelivery = Omit<DeliveryMeta, 'seq' | 'receivedAt'>;

/** A stored delivery as the index knows it (no headers or body: read() fetches those). */
export interface StoredDelivery {
  /** The delivery's seq (summary.seq, without building the summary). */
  seq: number;
  summary: RelayDeliverySummary;
  attempts: ForwardAttempt[];
  receivedMs: number;
  /**
   * The body bytes stored, without building the summary (summary.size but for a rejected
   * delivery kept truncated, where summary.size is what was received).
   */
  readonly size: number;
  /** The identity of the channel it was received on: name and generation (relay/server/base/channelKey.ts). */
  readonly channelKey: string;
}

/** A channel's counts as the store keeps them: per channel identity (`key`), named by its channel. */
export type KeyedChannelStatus = ChannelStatus & { key: string };

export interface StoreEvents {
  delivery: [StoredDelivery];
  /** An attempt applied to the index: this process's, and on a shared store every instance's. */
  forward: [number, ForwardAttempt, ForwardState | undefined];
  /** An attempt this process made, told as it records it (once, whatever the store): what the metrics count. */
  attempted: [number, ForwardAttempt];
}

/** List query: newest first; `before` pages back (seq < before), `since` keeps seq > since. */
export interface StoreListQuery extends DeliveryListQuery {
  before?: number;
  /** The page's filters, over every row the rest of the query keeps (src/core/relay/deliveryFilter.ts). */
  filter?: DeliveryFilter;
}

export interface StoreIntegrity {
  /** Damaged records (regions) skipped; the records after them were kept. */
  corruptRecords: number;
  corruptBytes: number;
  /** Bytes of incomplete last records (torn writes, never acknowledged) cut off at open. */
  truncatedBytes: number;
  /** The seq high-water mark file did not check out at open (numbering resumed from the journal). */
  seqFileDamaged?: boolean;
  /** Acknowledged deliveries found lost at open: a sealed segment cut short, a segment deleted. */
  lostDeliveries?: number;
  /** Which seqs, and why. */
  lost?: string;
}

/** Whether the store takes deliveries now (readiness), and whether it ever will again without a restart (liveness). */
export interface StoreHealth {
  /** Why the store takes no delivery now; absent: it does. */
  notReady?: string;
  /** Set when it never will again in this process (a restart is needed). */
  fatal?: boolean;
  /** Damage that does not stop it (acknowledged deliveries lost), shown by both health routes. */
  warning?: string;
}

export interface PruneOptions {
  keep?: number;
  olderThanMs?: number;
}

export interface RecordAttemptOptions {
  /** Start no sync of its own: the record rides on the next durable write. */
  lazy?: boolean;
}

/** A stored delivery's headers now and its body in parts, read as they are asked for (RelayStore.openBody). */
export interface BodyReader {
  meta: DeliveryMeta;
  /** Body bytes. */
  size: number;
  /** The next at most `max` body bytes, in order; throws if the record turns out damaged (at the latest with its last part). */
  next(max: number): Promise<Buffer>;
}

export interface RelayStore extends Pick<EventEmitter<StoreEvents>, 'on' | 'off' | 'once'> {
  /** The highest seq ever given out (never reused, even after its delivery is gone). */
  readonly lastSeq: number;
  /** Deliveries held. */
  readonly size: number;
  /** The highest seq of channel identity `key` (relay/server/base/channelKey.ts) the store holds or held since it opened; what a channel token is told instead of lastSeq. */
  lastSeqOf(key: string): number;
  /**
   * Stores a delivery; `durable` resolves once it is safe. The file journal assigns `seq` at once; a
   * store whose seq comes with durability (JetStream) gives 0 here and the seq in `durable`'s result.
   */
  begin(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<StoredDelivery> };
  add(meta: NewDelivery, body: Buffer): Promise<StoredDelivery>;
  recordAttempt(seq: number, attempt: ForwardAttempt, state?: ForwardState, options?: RecordAttemptOptions): Promise<void>;
  get(seq: number): StoredDelivery | undefined;
  /** One target's forward state of a delivery (without building the delivery's summary). */
  forwardState(seq: number, target: string): ForwardState | undefined;
  /** Deliveries with seq > since, ascending (one channel identity if given: relay/server/base/channelKey.ts). */
  after(since: number, channel?: string): IterableIterator<StoredDelivery>;
  /** Deliveries still pending a forward to at least one target, ascending. */
  pending(): StoredDelivery[];
  list(query: StoreListQuery): RelayDeliverySummary[];
  read(seq: number): Promise<{ meta: DeliveryMeta; body: Buffer } | undefined>;
  /**
   * The delivery's body without holding it whole (a store that can read parts of it, as the file
   * journal can); without it, large bodies are read whole, under a relay-wide bound.
   */
  openBody?(seq: number): Promise<BodyReader | undefined>;
  detail(seq: number): Promise<RelayDelivery | undefined>;
  /** Counts per channel identity (a re-created name has a row per generation). */
  channels(): KeyedChannelStatus[];
  prune(options: PruneOptions): Promise<{ removed: number; remaining: number }>;
  applyRetention(): Promise<void>;
  /** Damage found in storage: records skipped as corrupt, bytes cut as torn tails. */
  integrity(): StoreIntegrity;
  /** Whether deliveries can be stored now (GET /readyz), and whether a restart is needed (GET /healthz). */
  health(): StoreHealth;
  close(): Promise<void>;
}
