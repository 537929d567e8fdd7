// A DeliveryLog (./deliveryLog.ts) in memory: every record in a Map, gone when the process ends.
// For fast unit tests and trials (`relay --store memory:`), and the smallest example of a backend:
// it stores, reads by seq, records attempts and removes what the store's retention chose; the
// index, the queries and the events are LogStore's (./logStore.ts).
import type { AttemptToRecord, DeliveryLog, LogSink, ReadRecord } from './deliveryLog';
import { LogStore, type LogStoreOptions } from './logStore';
import type { DeliveryMeta, NewDelivery, StoreHealth, StoreIntegrity } from '../base/storeTypes';

export class MemoryLog implements DeliveryLog {
  readonly kind = 'memory';
  lastSeq = 0;
  private sink!: LogSink;
  private readonly records = new Map<number, ReadRecord>();
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  async open(sink: LogSink): Promise<void> {
    this.sink = sink; // nothing held yet: a memory log starts empty
  }

  append(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<DeliveryMeta> } {
    if (this.closed) return { seq: 0, durable: Promise.reject(new Error('the store is closed')) };
    const full: DeliveryMeta = { seq: ++this.lastSeq, receivedAt: new Date(this.now()).toISOString(), ...meta };
    this.records.set(full.seq, { meta: full, body: Buffer.from(body) });
    this.sink.delivery(full, body.length);
    return { seq: full.seq, durable: Promise.resolve(full) };
  }

  async read(seq: number): Promise<ReadRecord | undefined> {
    return this.records.get(seq);
  }

  async recordAttempt({ seq, attempt, state }: AttemptToRecord): Promise<void> {
    if (this.closed) throw new Error('the store is closed');
    this.sink.attempt(seq, attempt, state);
  }

  async prune(minSeq: number): Promise<void> {
    for (const seq of this.records.keys()) if (seq < minSeq) this.records.delete(seq);
    this.sink.dropBelow(minSeq);
  }

  async dropRejected(upTo: number): Promise<void> {
    for (const [seq, r] of this.records) if (seq <= upTo && r.meta.verification === 'rejected') this.records.delete(seq);
    this.sink.hideRejectedUpTo(upTo);
  }

  health(): StoreHealth {
    return this.closed ? { notReady: 'the store is closed', fatal: true } : {};
  }

  integrity(): StoreIntegrity {
    return { corruptRecords: 0, corruptBytes: 0, truncatedBytes: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A store whose deliveries live in memory only. */
export function openMemoryStore(options: LogStoreOptions = {}): Promise<LogStore<MemoryLog>> {
  return LogStore.over(new MemoryLog(options.now), options);
}
