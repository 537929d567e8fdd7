// The relay's store over any DeliveryLog (./deliveryLog.ts): the compact in-memory index
// (../deliveryIndex/compactIndex.ts) built from the records the log feeds it, the queries the relay asks
// (get, after, pending, list, channels), the events (delivery, forward), the retention's choice of
// what goes. The log stores, reads, follows and removes; this decides and answers, for every backend.
import { EventEmitter } from 'node:events';
import type { ForwardAttempt, ForwardState, RelayDelivery, RelayDeliverySummary } from '../../../src/core/relay/protocol';
import { CompactIndex, NO_REF, type AttemptFields, type IndexedDelivery, type IndexRow, type RecordRef, type StateFields } from '../deliveryIndex/compactIndex';
import { channelKey, channelOfKey } from '../base/channelKey';
import type { DeliveryLog, LogSink } from './deliveryLog';
import { imageCheck, type ImageReader, type ImageWriter } from '../base/imageParts';
import { loadObject, saveObject } from '../base/objectImage';
import { filtering } from '../../../src/core/relay/deliveryFilter';
import { filteredList } from './filteredList';
import { REJECTED_KEEP, sizeFields } from '../base/rejected';
import { attemptFields, indexedDelivery, stateFields } from './storeRecords';
import { ChannelLasts } from './channelLasts';
import type {
  BodyReader,
  DeliveryMeta,
  KeyedChannelStatus,
  NewDelivery,
  PruneOptions,
  RecordAttemptOptions,
  RelayStore,
  StoreEvents,
  StoreHealth,
  StoreIntegrity,
  StoreListQuery,
} from '../base/storeTypes';

/** A delivery as the index gives it out: a summary built for this call, its attempts, where its record is. */
export type Entry = IndexRow;

export interface LogStoreOptions {
  /**
   * What the store keeps, applied by applyRetention() through the log's prune and dropRejected: maxCount
   * accepted (verified or unverified) deliveries, maxRejected rejected ones apart (default
   * REJECTED_KEEP), so rejected traffic never pushes out an accepted delivery; maxAgeMs both.
   */
  retention?: { maxCount?: number; maxAgeMs?: number; maxRejected?: number };
  now?: () => number;
  /** Where each channel identity's last seq is kept once its deliveries are gone (./channelLasts.ts); none: for this process only. */
  lastsFile?: string;
}

/** An attempt that arrived before its delivery (a log that follows deliveries and attempts apart). */
interface HeldAttempt {
  attempt: AttemptFields;
  state?: StateFields;
  told?: { attempt: ForwardAttempt; state?: ForwardState };
}

export function headerRecord(pairs: [string, string][]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of pairs) {
    const n = k.toLowerCase();
    out[n] = n in out ? `${out[n]}, ${v}` : v;
  }
  return out;
}

export class LogStore<L extends DeliveryLog = DeliveryLog> extends EventEmitter<StoreEvents> implements RelayStore {
  protected index = new CompactIndex();
  /** Deliveries below this seq are gone. */
  private minSeq = 0;
  /** Rejected deliveries up to this seq are gone. */
  private rejectedUpTo = 0;
  /** The highest delivery seq the log fed the index. */
  private indexedUpTo = 0;
  private readonly held = new Map<number, HeldAttempt[]>();
  /** False while the log replays what it holds: no events then (nobody listens yet), no rows built. */
  private opened = false;
  private readonly now: () => number;
  /** Channel identities' last seqs whose records a prune took (kept across restarts). */
  private readonly lasts: ChannelLasts;
  /** The body in parts, when the log can read it so (RelayStore.openBody). */
  readonly openBody?: (seq: number) => Promise<BodyReader | undefined>;

  protected constructor(
    readonly log: L,
    private readonly options: LogStoreOptions = {},
  ) {
    super();
    this.now = options.now ?? Date.now;
    this.lasts = new ChannelLasts(options.lastsFile);
    if (log.openBody) this.openBody = (seq) => log.openBody!(seq, this.get(seq));
  }

  /** Opens `log` and builds the index from what it holds. */
  static async over<L extends DeliveryLog>(log: L, options: LogStoreOptions = {}): Promise<LogStore<L>> {
    const store = new LogStore(log, options);
    await store.start();
    return store;
  }

  protected async start(): Promise<void> {
    await this.startAppending();
    await this.finishLoad();
  }

  /**
   * Opens the log so far that appends work (a log with openTail: before what it holds is
   * indexed); finishLoad() then builds the index. Queries before that see an empty store.
   */
  protected async startAppending(): Promise<void> {
    // What the log holds arrives in bulk: the pending set is built once at the end (CompactIndex.deferPendingSet).
    this.index.deferPendingSet();
    if (this.log.openTail) await this.log.openTail(this.sink());
    else await this.log.open(this.sink());
  }

  /** Indexes what the log held at open, then what was appended since; from then on events are emitted. */
  async finishLoad(): Promise<void> {
    if (this.opened) return;
    await this.log.loadRest?.();
    this.index.buildPendingSet();
    this.opened = true;
  }

  /** What the log feeds. */
  private sink(): LogSink {
    return {
      delivery: (d, size, ref) => this.indexDelivery('headers' in d ? indexedDelivery(d, 0) : d, size, ref),
      attempt: (seq, attempt, state) =>
        this.indexAttempt(seq, {
          attempt: attemptFields(attempt),
          ...(state ? { state: stateFields(state) } : {}),
          told: { attempt, ...(state ? { state } : {}) },
        }),
      attemptFields: (seq, attempt, state) => {
        // (the common case at open, a million times: applied without an object to hold it; the
        // objects are reused by the caller, so one that is held is copied)
        if (!this.holds(seq)) this.index.applyAttempt(seq, attempt, state);
        else this.indexAttempt(seq, { attempt: { ...attempt }, ...(state ? { state: { ...state } } : {}) });
      },
      dropBelow: (minSeq) => {
        if (minSeq <= this.minSeq) return;
        this.minSeq = minSeq;
        this.index.dropBelow(minSeq);
        for (const seq of this.held.keys()) if (seq < minSeq) this.held.delete(seq);
      },
      hideRejectedUpTo: (upTo) => {
        this.rejectedUpTo = Math.max(this.rejectedUpTo, upTo);
        this.index.hideRejectedUpTo(upTo);
      },
      save: (w) => this.save(w),
      restore: (r) => this.restore(r),
    };
  }

  private save(w: ImageWriter): boolean {
    if (this.held.size > 0) return false;
    w.json({ minSeq: this.minSeq, rejectedUpTo: this.rejectedUpTo, indexedUpTo: this.indexedUpTo });
    saveObject(w, this.index);
    return true;
  }

  private async restore(r: ImageReader): Promise<() => void> {
    const f = await r.json<{ minSeq: number; rejectedUpTo: number; indexedUpTo: number }>();
    imageCheck(
      [f.minSeq, f.rejectedUpTo, f.indexedUpTo].every((n) => Number.isSafeInteger(n) && n >= 0),
      'store fields',
    );
    const index = await loadObject(r, this.index, CompactIndex.imageSamples());
    return () => {
      if (this.index.rows.last > 0 || this.held.size > 0) throw new Error('an index snapshot is restored before any record is fed');
      this.index = index;
      index.deferPendingSet(); // built once the records after the snapshot are in (finishLoad)
      ({ minSeq: this.minSeq, rejectedUpTo: this.rejectedUpTo, indexedUpTo: this.indexedUpTo } = f);
    };
  }

  private indexDelivery(d: IndexedDelivery, size: number, ref: RecordRef | undefined): void {
    if (!this.index.insert(d, size, ref)) return;
    this.indexedUpTo = d.seq;
    if (this.held.size > 0) this.applyHeld(d.seq);
    if (this.opened) this.emit('delivery', this.get(d.seq)!);
  }

  /** Applies the attempts held for `seq`; those held for lower seqs never get their delivery (seqs arrive ascending). */
  private applyHeld(seq: number): void {
    for (const [s, list] of this.held) {
      if (s > seq) continue;
      this.held.delete(s);
      if (s === seq) for (const h of list) this.index.applyAttempt(seq, h.attempt, h.state);
    }
  }

  /** Is an attempt of `seq` held until its delivery is indexed (not indexed yet, and not pruned)? */
  private holds(seq: number): boolean {
    return seq > this.indexedUpTo && seq >= this.minSeq;
  }

  /** Applies an attempt; one for a delivery not indexed yet is held until it is (told then, as part of it). */
  private indexAttempt(seq: number, h: HeldAttempt): void {
    if (this.holds(seq)) {
      const list = this.held.get(seq) ?? [];
      list.push(h);
      this.held.set(seq, list);
      return;
    }
    this.index.applyAttempt(seq, h.attempt, h.state);
    if (this.opened && h.told) this.emit('forward', seq, h.told.attempt, h.told.state);
  }

  get lastSeq(): number {
    return this.log.lastSeq;
  }

  get size(): number {
    return this.index.size;
  }

  lastSeqOf(key: string): number {
    return Math.max(this.index.lastSeqOf(key), this.lasts.of(key));
  }

  add(meta: NewDelivery, body: Buffer): Promise<Entry> {
    return this.begin(meta, body).durable;
  }

  begin(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<Entry> } {
    const { seq, durable } = this.log.append(meta, body);
    return { seq, durable: durable.then((full) => this.get(full.seq) ?? provisional(full, body.length)) };
  }

  recordAttempt(seq: number, attempt: ForwardAttempt, state?: ForwardState, options?: RecordAttemptOptions): Promise<void> {
    this.emit('attempted', seq, attempt); // made here, whether or not its record is kept
    const i = this.index.find(seq);
    const channel = i < 0 ? undefined : channelOfKey(this.index.channelKeyAt(i)); // (no summary built)
    return this.log.recordAttempt({ seq, attempt, ...(state ? { state } : {}), ...(channel !== undefined ? { channel } : {}) }, options);
  }

  get(seq: number): Entry | undefined {
    const i = this.index.find(seq);
    return i < 0 ? undefined : this.index.row(i);
  }

  forwardState(seq: number, target: string): ForwardState | undefined {
    const i = this.index.find(seq);
    return i < 0 ? undefined : this.index.forwardStateAt(i, target);
  }

  /** Entries with seq > since, ascending, optionally one channel identity. */
  after(since: number, channel?: string): Generator<Entry> {
    return this.index.after(since, channel);
  }

  /** Entries still pending a forward to at least one target, ascending (O(pending)). */
  pending(): Entry[] {
    return this.index.pending();
  }

  /** Newest first; `before` pages back, `since` keeps newer ones; `filter` over all of them (./filteredList.ts). */
  list(q: StoreListQuery): RelayDeliverySummary[] {
    const { filter, ...rest } = q;
    return filter && filtering(filter) ? filteredList((c) => this.index.list(c), rest, filter) : this.index.list(rest);
  }

  /** Per-channel counts, kept as deliveries arrive, are forwarded and are pruned (O(channels)). */
  channels(): KeyedChannelStatus[] {
    return this.index.channelStatus();
  }

  read(seq: number): Promise<{ meta: DeliveryMeta; body: Buffer } | undefined> {
    return this.log.read(seq, this.get(seq));
  }

  async detail(seq: number): Promise<RelayDelivery | undefined> {
    if (!this.get(seq)) return undefined; // not indexed: nothing to read
    const r = await this.read(seq);
    const e = this.get(seq); // after the read: a row is read at once, never across an await
    if (!r || !e) return undefined;
    return { ...e.summary, headers: headerRecord(r.meta.headers), bodyBase64: r.body.toString('base64'), attempts: [...e.attempts] };
  }

  /** The seq that pruning with these options keeps first (deliveries below it go). */
  private pruneFloor(opts: PruneOptions): number {
    let minSeq = this.minSeq;
    const { first, last } = this.index.rows;
    if (opts.keep === 0) minSeq = this.lastSeq + 1;
    // `keep` counts accepted deliveries only: rejected ones have their own retention (dropRejected).
    else if (opts.keep !== undefined) minSeq = Math.max(minSeq, this.index.floorKeeping(opts.keep, false) + 1);
    if (opts.olderThanMs !== undefined) {
      const cutoff = this.now() - opts.olderThanMs;
      for (let i = first; i < last && this.index.receivedMsAt(i) < cutoff; i++) minSeq = Math.max(minSeq, this.index.seqAt(i) + 1);
    }
    return minSeq;
  }

  /** Drops the oldest deliveries beyond `keep` accepted ones or older than `olderThanMs`. */
  async prune(opts: PruneOptions): Promise<{ removed: number; remaining: number }> {
    const minSeq = this.pruneFloor(opts);
    if (minSeq <= this.minSeq) return { removed: 0, remaining: this.index.size };
    const before = this.index.size;
    await this.lasts.keep(this.index.lastsBelow(minSeq));
    await this.log.prune(minSeq);
    return { removed: before - this.index.size, remaining: this.index.size };
  }

  /** Keeps the newest `keep` rejected deliveries; older ones leave every list and count (a log without dropRejected keeps them). */
  async dropRejected(keep: number): Promise<number> {
    const upTo = this.index.floorKeeping(keep, true);
    if (upTo <= this.rejectedUpTo || !this.log.dropRejected) return 0;
    const before = this.index.size;
    await this.lasts.keep(this.index.lastsBelow(upTo + 1));
    await this.log.dropRejected(upTo);
    return before - this.index.size;
  }

  /** Applies the configured retention (count, age, rejected). */
  async applyRetention(): Promise<void> {
    const r = this.options.retention;
    if (!r) return;
    if (r.maxCount !== undefined || r.maxAgeMs !== undefined) await this.prune({ keep: r.maxCount, olderThanMs: r.maxAgeMs });
    await this.dropRejected(r.maxRejected ?? REJECTED_KEEP);
  }

  health(): StoreHealth {
    return this.log.health();
  }

  integrity(): StoreIntegrity {
    return this.log.integrity();
  }

  close(): Promise<void> {
    return this.log.close();
  }
}

/** What ingress answers for a durable delivery the index does not show yet (a log that follows a stream). */
function provisional(meta: DeliveryMeta, size: number): Entry {
  const summary: RelayDeliverySummary = {
    seq: meta.seq,
    channel: meta.channel,
    receivedAt: meta.receivedAt,
    verification: meta.verification,
    ...sizeFields(meta, size),
    forward: [],
  };
  return { seq: meta.seq, summary, attempts: [], receivedMs: Date.parse(meta.receivedAt), channelKey: channelKey(meta.channel, meta.gen), loc: NO_REF, size };
}
