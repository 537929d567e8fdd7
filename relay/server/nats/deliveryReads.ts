// Reading a delivery's body from the deliveries stream, checked against the index (issue 21): by
// direct get (any current replica answers, not only the leader, so subscribers get bodies while
// the stream elects a leader), with the stream leader's word when the answer is not the delivery
// the index holds at that seq.
import type { DeliveryMeta } from '../base/storeTypes';
import type { ReadRecord } from '../store/deliveryLog';
import type { IndexRow } from '../deliveryIndex/compactIndex';
import { sizeFields } from '../base/rejected';
import { StoreUnavailableError } from '../base/errors';
import { readMessage, type MessageReaders } from './hedged';
import { describe, found, isNotFound, transient } from './apiErrors';
import { META_HEADER } from './storeOptions';

/** Reads that find the leader's copy not the indexed delivery before its word is taken (about 0.5 s apart). */
const DISAGREED_READS = 6;

export interface ReadHandles {
  stream: string;
  /** Asked at each read (a test replaces the log's readers). */
  readers: () => MessageReaders;
  /** A seq whose indexed row may be another message's (./copyCheck.ts): read from the leader only. */
  suspect: (seq: number) => boolean;
  /** True when the stream no longer holds `seq` by its leader's word (./absent.ts). */
  absent: (seq: number) => Promise<boolean>;
  closed: () => boolean;
  log?: (line: string) => void;
}

export class DeliveryReader {
  /** Reads at which the leader's copy was not the indexed delivery, by seq. */
  private readonly disagreements = new Map<number, number>();

  constructor(private readonly h: ReadHandles) {}

  /**
   * Delivery `seq` as the stream holds it; undefined when it holds none. Tried again for up to
   * 10 s when no replica answers (the leader-only STREAM.MSG.GET timed out while the stream
   * elected, and a subscriber's delivery went out without its body or waited for it), then
   * StoreUnavailableError (transient: a subscriber's pump reads it again, the API answers 503).
   */
  async read(seq: number, indexed: IndexRow | undefined): Promise<ReadRecord | undefined> {
    const { stream, log } = this.h;
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const readers = this.h.readers();
        const leader = async () => found(await readers.leader(stream, seq), stream, seq);
        const suspect = this.h.suspect(seq);
        let m = suspect ? await leader() : await readMessage(readers, stream, seq);
        let meta = JSON.parse(m.header.get(META_HEADER)) as Omit<DeliveryMeta, 'seq'>;
        const row = indexed?.summary;
        const other = (x: Omit<DeliveryMeta, 'seq'>, size: number) =>
          row !== undefined && (x.receivedAt !== row.receivedAt || sizeFields(x, size).size !== row.size);
        if (!suspect && other(meta, m.data.length)) {
          // Not the delivery this seq holds (a replica that diverged around a fail-over): the leader's word.
          log?.(`store: a replica answered seq ${seq} of ${stream} with another message; read from the stream's leader`);
          m = await leader();
          meta = JSON.parse(m.header.get(META_HEADER)) as Omit<DeliveryMeta, 'seq'>;
          // The leader's answer is not the indexed delivery either: while the cluster settles a
          // server that still answers as the leader it was gave another copy's message (issue 21).
          // Asked again shortly (the caller's read again) before the leader's word is taken.
          if (other(meta, m.data.length) && this.disagreed(seq)) throw new StoreUnavailableError(`the copies of ${stream} disagree at seq ${seq}`);
        }
        this.disagreements.delete(seq);
        return { meta: { ...meta, seq }, body: Buffer.from(m.data) };
      } catch (err) {
        // "Not found" from a replica may only mean it is behind: only the leader's word counts.
        const notFound = isNotFound(err);
        if (notFound && !indexed) return undefined; // not in the index either: nothing known to read
        if (notFound && (await this.h.absent(seq))) return undefined;
        if (!(notFound || transient(err))) throw err;
        // Transient (no replica answered in time): the caller may try again, unlike a damaged record.
        if (this.h.closed() || Date.now() + 250 >= deadline)
          throw new StoreUnavailableError(`JetStream did not answer a read of delivery ${seq}: ${describe(err)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** Counts a read where the leader's copy was not the indexed delivery; true while it should be asked again. */
  private disagreed(seq: number): boolean {
    const n = (this.disagreements.get(seq) ?? 0) + 1;
    if (n > DISAGREED_READS) {
      this.disagreements.delete(seq);
      this.h.log?.(`store: the stream's leader keeps another message at seq ${seq} than the index holds; its message is taken`);
      return false;
    }
    this.disagreements.set(seq, n);
    if (this.disagreements.size > 4096) this.disagreements.delete(this.disagreements.keys().next().value!);
    return true;
  }
}
