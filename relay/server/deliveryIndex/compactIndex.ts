// The store's in-memory index, compact: one row per delivery in typed-array columns (seq, record
// location, receipt time, channel / event / target-list ids, verification, forward flags), the
// delivery id and the rare reason beside them, and forward states and attempts only for the
// deliveries that have them. Summaries are built on demand for the rows asked for. Per-channel
// counters and the set of pending seqs are kept up to date as rows arrive, are forwarded and are
// dropped, so status and pending() never walk every row.
import type { ChannelStatus, ForwardAttempt, ForwardState, ForwardStatus, RelayDeliverySummary } from '../../../src/core/relay/protocol';
import type { StoreListQuery } from '../base/storeTypes';
import { Interner } from './interner';
import { AttemptArena, type AttemptFields } from './attemptArena';
import { sizeFields } from '../base/rejected';
import { StringColumn } from './stringColumn';
import { channelKey, channelOfKey } from '../base/channelKey';
import type { ImageReader, ImageWriter } from '../base/imageParts';
import { checkIndexImage, type IndexImage } from './indexImage';
import { ALL_OK, capacityFor, Columns, FAILED, flagsOf, HIDDEN, PENDING, REJECTED, stateObject, STATUSES, VERIFICATIONS } from './indexColumns';
import { LazyRow, NO_REF, type IndexedDelivery, type IndexRow, type RecordRef, type StateFields } from './indexRows';

export type { AttemptFields } from './attemptArena';
export { NO_REF, type IndexedDelivery, type IndexRow, type RecordRef, type StateFields } from './indexRows';

type Counts = Omit<ChannelStatus, 'name'> & { pending: number };

/** The counter of rows a status filter matches (see matches()). */
const COUNTED = new Map<string, (c: Counts) => number>([
  ['pending', (c) => c.pending],
  ['failed', (c) => c.failed],
  ['ok', (c) => c.forwarded],
  ['verified', (c) => c.verified],
  ['unverified', (c) => c.unverified],
  ['rejected', (c) => c.rejected],
]);

export class CompactIndex {
  private cols = new Columns();
  /** Live rows are [head, end). */
  private head = 0;
  private end = 0;
  private deliveryIds = new StringColumn();
  /** Forward states of deliveries with several targets, once one was recorded. */
  private forward: (ForwardState[] | undefined)[] = [];
  private reasons = new Map<number, string>();
  /** Rejected deliveries stored as a prefix (rare): their received size and sha256. */
  private received = new Map<number, { size: number; sha256: string }>();
  /** Channel identities (name and generation: ../base/channelKey.ts), and the name of each id. */
  private channels = new Interner();
  private readonly channelNames: string[] = [];
  /** The highest seq each channel identity received (by channel id). */
  private channelLast: number[] = [];
  private events = new Interner();
  private targetLists = new Interner();
  /** Parsed target lists, by targetLists id. */
  private targetArrays: string[][] = [];
  private targetNames = new Interner();
  /** Counters by channel id (dense). */
  private counts: (Counts | undefined)[] = [];
  /** The last row's channel, event and target list with their ids: rows mostly repeat them (a restart inserts a million). */
  private last = {
    channel: '',
    gen: undefined as string | undefined,
    channelId: -1,
    event: undefined as string | undefined,
    eventId: 0,
    target: '',
    targetsId: -1,
  };
  private readonly pendingSeqs = new Set<number>();
  /** While a journal loads: the pending set is left alone and built once at the end (buildPendingSet). */
  private pendingDeferred = false;
  private arena = new AttemptArena(this.targetNames);

  /** Live rows that are hidden (HIDDEN). */
  private hidden = 0;
  /** Rejected rows up to this seq are hidden. */
  private hiddenUpTo = 0;

  get size(): number {
    return this.end - this.head - this.hidden;
  }

  get firstSeq(): number | undefined {
    return this.size > 0 ? this.cols.seq[this.head] : undefined;
  }

  /** Adds a delivery of `size` body bytes; seqs arrive ascending (an older or repeated seq is ignored). */
  insert(d: IndexedDelivery, size: number, loc: RecordRef = NO_REF): boolean {
    if (this.size > 0 && d.seq <= this.cols.seq[this.end - 1]!) return false;
    if (this.end === this.cols.seq.length) this.grow();
    const i = this.end++;
    const c = this.cols;
    const targets = d.verification === 'rejected' ? [] : d.targets;
    c.seq[i] = d.seq;
    c.segment[i] = loc.segment;
    c.offset[i] = loc.offset;
    c.length[i] = loc.length;
    c.size[i] = size;
    c.receivedMs[i] = d.receivedMs;
    const last = this.last;
    if (d.channel !== last.channel || d.gen !== last.gen || last.channelId < 0) {
      last.channelId = this.channelId(channelKey(d.channel, d.gen));
      last.channel = d.channel;
      last.gen = d.gen;
    }
    c.channel[i] = last.channelId;
    this.channelLast[last.channelId] = d.seq;
    if (d.event !== last.event) {
      last.eventId = d.event === undefined ? 0 : this.events.id(d.event) + 1;
      last.event = d.event;
    }
    c.event[i] = last.eventId;
    if (targets.length === 1 && targets[0] === last.target && last.targetsId >= 0) c.targets[i] = last.targetsId;
    else {
      c.targets[i] = this.targetListId(targets);
      last.target = targets.length === 1 ? targets[0]! : '';
      last.targetsId = targets.length === 1 ? c.targets[i]! : -1;
    }
    c.verification[i] = d.verification === 'verified' ? 0 : d.verification === 'unverified' ? 1 : REJECTED;
    c.flags[i] = targets.length > 0 ? PENDING : 0;
    if (d.deliveryIdUtf8) this.deliveryIds.pushBytes(d.deliveryIdUtf8);
    else this.deliveryIds.push(d.deliveryId);
    this.forward[i - this.head] = undefined;
    c.fStatus[i] = 0;
    c.fAttempts[i] = 0;
    c.fLastStatus[i] = 0;
    c.fNextMs[i] = NaN;
    c.aHead[i] = -1;
    c.aTail[i] = -1;
    c.aCount[i] = 0;
    if (d.reason) this.reasons.set(d.seq, d.reason);
    if (d.received) this.received.set(d.seq, d.received);
    this.count(i, +1);
    return true;
  }

  private channelId(key: string): number {
    const id = this.channels.id(key);
    this.channelNames[id] ??= channelOfKey(key);
    return id;
  }

  /** The highest seq channel identity `key` received (0: none held since start). */
  lastSeqOf(key: string): number {
    const id = this.channels.find(key);
    return id < 0 ? 0 : (this.channelLast[id] ?? 0);
  }

  /** Each channel identity whose newest seq is below `seq` (its deliveries all go with a prune to `seq`), with that seq. */
  lastsBelow(seq: number): [string, number][] {
    const out: [string, number][] = [];
    this.channelLast.forEach((last, id) => {
      if (last > 0 && last < seq) out.push([this.channels.name(id), last]);
    });
    return out;
  }

  /** The channel identity of row `i`. */
  channelKeyAt(i: number): string {
    return this.channels.name(this.cols.channel[i]!);
  }

  private grow(): void {
    const live = this.size;
    const capacity = Math.max(1024, live * 2);
    this.cols = this.cols.resized(capacity, this.head, this.end);
    this.head = 0;
    this.end = live;
  }

  private targetListId(targets: string[]): number {
    const key = targets.length === 1 ? targets[0]! : targets.join('\n');
    const id = this.targetLists.id(key);
    this.targetArrays[id] ??= targets.map((t) => this.targetNames.intern(t));
    return id;
  }

  /** The row of `seq`, or -1. */
  find(seq: number): number {
    // Seqs are mostly consecutive: try the row `seq` would be at if none were missing after it.
    const guess = this.end - 1 - (this.cols.seq[this.end - 1]! - seq);
    const i = guess >= this.head && guess < this.end && this.cols.seq[guess] === seq ? guess : this.lowerBound(seq);
    return i < this.end && this.cols.seq[i] === seq && !(this.cols.flags[i]! & HIDDEN) ? i : -1;
  }

  /** Hides every rejected row with seq <= `upTo` (the rejected deliveries' own retention). */
  hideRejectedUpTo(upTo: number): void {
    if (upTo <= this.hiddenUpTo) return;
    const stop = this.lowerBound(upTo + 1);
    for (let i = this.lowerBound(this.hiddenUpTo + 1); i < stop; i++) {
      if (this.cols.verification[i] !== REJECTED || this.cols.flags[i]! & HIDDEN) continue;
      this.count(i, -1);
      this.cols.flags[i]! |= HIDDEN;
      this.hidden++;
    }
    this.hiddenUpTo = upTo;
  }

  /**
   * The newest seq whose rows go when `keep` rows of one kind stay: accepted rows (`rejected`
   * false: verified or unverified) or visible rejected ones. 0 when no more than `keep` are held.
   */
  floorKeeping(keep: number, rejected: boolean): number {
    let n = 0;
    for (let i = this.end - 1; i >= this.head; i--) {
      const f = this.cols.flags[i]!;
      if (f & HIDDEN || (this.cols.verification[i] === REJECTED) !== rejected) continue;
      if (n++ === keep) return this.cols.seq[i]!;
    }
    return 0;
  }

  /** First row with seq >= `seq`. */
  private lowerBound(seq: number): number {
    let lo = this.head;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cols.seq[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  applyAttempt(seq: number, attempt: AttemptFields, state?: StateFields): boolean {
    const i = this.find(seq);
    if (i < 0) return false;
    const c = this.cols;
    c.aTail[i] = this.arena.push(attempt, c.aTail[i]!);
    if (c.aHead[i]! < 0) c.aHead[i] = c.aTail[i]!;
    c.aCount[i]!++;
    if (state) this.applyState(i, state);
    return true;
  }

  private applyState(i: number, state: StateFields): void {
    const c = this.cols;
    const k = i - this.head;
    const targets = this.targetArrays[c.targets[i]!]!;
    const t = targets.indexOf(state.target);
    this.count(i, -1);
    if (targets.length === 1 && t === 0 && !this.forward[k]) {
      c.fStatus[i] = STATUSES.indexOf(state.status);
      c.fAttempts[i] = state.attempts;
      c.fLastStatus[i] = state.lastStatus ?? 0;
      c.fNextMs[i] = state.nextAttemptMs ?? NaN;
      c.flags[i] = state.status === 'ok' ? ALL_OK : state.status === 'pending' ? PENDING : FAILED;
    } else {
      // Several targets, or a target the delivery did not list (a subscriber that forwarded it,
      // SUBSCRIBER_TARGET): the row keeps state objects from now on.
      const states = this.forwardOf(i);
      const at = states.findIndex((f) => f.target === state.target);
      if (at < 0) states.push(stateObject(this.targetNames.intern(state.target), state));
      else states[at] = stateObject(states[at]!.target, state);
      this.forward[k] = states;
      c.flags[i] = flagsOf(states);
    }
    this.count(i, +1);
  }

  /** The forward states of row `i`. */
  private forwardOf(i: number): ForwardState[] {
    const c = this.cols;
    const targets = this.targetArrays[c.targets[i]!]!;
    const objects = this.forward[i - this.head];
    if (objects) return objects;
    if (targets.length === 1) {
      const next = c.fNextMs[i]!;
      const last = c.fLastStatus[i]!;
      return [
        stateObject(targets[0]!, {
          target: targets[0]!,
          status: STATUSES[c.fStatus[i]!]!,
          attempts: c.fAttempts[i]!,
          ...(last ? { lastStatus: last } : {}),
          ...(Number.isNaN(next) ? {} : { nextAttemptMs: next }),
        }),
      ];
    }
    return targets.map((target) => ({ target: this.targetNames.intern(target), status: 'pending' as ForwardStatus, attempts: 0 }));
  }

  private count(i: number, sign: 1 | -1): void {
    const ch = this.cols.channel[i]!;
    let c = this.counts[ch];
    if (!c) this.counts[ch] = c = { received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0, pending: 0 };
    const f = this.cols.flags[i]!;
    c.received += sign;
    c[VERIFICATIONS[this.cols.verification[i]!]!] += sign;
    if (f & ALL_OK) c.forwarded += sign;
    if (f & FAILED) c.failed += sign;
    if (f & PENDING) c.pending += sign;
    if (this.pendingDeferred) return;
    const seq = this.cols.seq[i]!;
    if (f & PENDING && sign > 0) this.pendingSeqs.add(seq);
    else if (sign < 0) this.pendingSeqs.delete(seq);
  }

  /**
   * Stops keeping the pending set until buildPendingSet(). At a restart nearly every delivery is
   * added to the set by its record and removed again by its attempt's: a third of the load's CPU
   * at a million deliveries went to that churn.
   */
  deferPendingSet(): void {
    this.pendingDeferred = true;
    this.pendingSeqs.clear();
  }

  /** Builds the pending set from the rows' flags (one pass over a typed array) and keeps it again. */
  buildPendingSet(): void {
    this.pendingDeferred = false;
    this.pendingSeqs.clear();
    const { flags, seq } = this.cols;
    for (let i = this.head; i < this.end; i++) if ((flags[i]! & (PENDING | HIDDEN)) === PENDING) this.pendingSeqs.add(seq[i]!);
  }

  /** Forgets every delivery below `minSeq` (O(dropped)); returns how many. */
  dropBelow(minSeq: number): number {
    const cut = this.lowerBound(minSeq);
    const dropped = cut - this.head;
    let visible = dropped;
    for (let i = this.head; i < cut; i++) {
      if (this.cols.flags[i]! & HIDDEN) {
        this.hidden--;
        visible--;
      } else this.count(i, -1);
      this.reasons.delete(this.cols.seq[i]!);
      this.received.delete(this.cols.seq[i]!);
      this.arena.live -= this.cols.aCount[i]!;
    }
    this.deliveryIds.dropFront(dropped);
    this.forward.splice(0, dropped);
    this.head = cut;
    if (this.head > 4096 && this.head * 2 > this.end) {
      this.cols = this.cols.resized(this.cols.seq.length, this.head, this.end);
      this.end -= this.head;
      this.head = 0;
    }
    if (this.arena.rows > 4096 && this.arena.live * 2 < this.arena.rows) {
      this.arena.compact(this.cols.aHead.slice(this.head, this.end), (k, first, tail) => {
        this.cols.aHead[this.head + k] = first;
        this.cols.aTail[this.head + k] = tail;
      });
    }
    return visible;
  }

  seqAt(i: number): number {
    return this.cols.seq[i]!;
  }

  receivedMsAt(i: number): number {
    return this.cols.receivedMs[i]!;
  }

  /** Rows [first, last) in seq order. */
  get rows(): { first: number; last: number } {
    return { first: this.head, last: this.end };
  }

  summary(i: number): RelayDeliverySummary {
    const c = this.cols;
    const seq = c.seq[i]!;
    const reason = this.reasons.get(seq);
    const event = c.event[i]! > 0 ? this.events.name(c.event[i]! - 1) : undefined;
    const deliveryId = this.deliveryIds.get(i - this.head);
    return {
      seq,
      channel: this.channelNames[c.channel[i]!]!,
      receivedAt: new Date(c.receivedMs[i]!).toISOString(),
      verification: VERIFICATIONS[c.verification[i]!]!,
      ...(reason ? { reason } : {}),
      event,
      deliveryId,
      ...sizeFields({ received: this.received.get(seq) }, c.size[i]!),
      forward: this.forwardOf(i).map((f) => ({ ...f })),
    };
  }

  /** Row `i`; its summary and attempts are built when first read (most callers need neither). */
  row(i: number): IndexRow {
    const c = this.cols;
    return new LazyRow(this, c.seq[i]!, c.receivedMs[i]!, { segment: c.segment[i]!, offset: c.offset[i]!, length: c.length[i]! }, c.size[i]!);
  }

  /** The forward state of one target of row `i` (for a one-target row, no summary built). */
  forwardStateAt(i: number, target: string): ForwardState | undefined {
    return this.forwardOf(i).find((f) => f.target === target);
  }

  /** The attempts of row `i`, oldest first. */
  attemptsAt(i: number): ForwardAttempt[] {
    return this.arena.list(this.cols.aHead[i]!);
  }

  /** Rows with seq > since, ascending, optionally one channel identity (../base/channelKey.ts). */
  *after(since: number, channel?: string): Generator<IndexRow> {
    const ch = channel === undefined ? -1 : this.channels.find(channel);
    if (channel !== undefined && ch < 0) return;
    for (let i = this.lowerBound(since + 1); i < this.end; i++)
      if ((ch < 0 || this.cols.channel[i] === ch) && !(this.cols.flags[i]! & HIDDEN)) yield this.row(i);
  }

  /** Rows still pending a forward, ascending by seq (O(pending)). */
  pending(): IndexRow[] {
    return [...this.pendingSeqs].sort((a, b) => a - b).map((seq) => this.row(this.find(seq)));
  }

  /** Newest first: seq < before, seq > since, one channel, one status; at most `limit` (1..10,000). */
  list(q: StoreListQuery): RelayDeliverySummary[] {
    const limit = Math.max(1, Math.min(q.limit ?? 100, 10_000));
    const ch = q.channel === undefined ? -1 : this.channels.find(q.channel);
    if (q.channel !== undefined && ch < 0) return [];
    if (q.status && this.noneMatch(ch, q.status)) return [];
    const out: RelayDeliverySummary[] = [];
    const start = q.before === undefined ? this.end : this.lowerBound(q.before);
    const stop = q.since === undefined ? this.head : this.lowerBound(q.since + 1);
    for (let i = start - 1; i >= stop && out.length < limit; i--) {
      if (ch >= 0 && this.cols.channel[i] !== ch) continue;
      if (this.cols.flags[i]! & HIDDEN) continue;
      if (q.status && !this.matches(i, q.status)) continue;
      out.push(this.summary(i));
    }
    return out;
  }

  /**
   * Whether the counters say no visible row of channel id `ch` (-1: any) has `status`: a filter
   * nothing matches is answered at once instead of by walking every row.
   */
  private noneMatch(ch: number, status: string): boolean {
    const count = COUNTED.get(status);
    if (!count) return false;
    let n = 0;
    for (const [id, c] of this.counts.entries()) if (c && (ch < 0 || id === ch)) n += count(c);
    return n === 0;
  }

  private matches(i: number, status: string): boolean {
    const f = this.cols.flags[i]!;
    if (status === 'pending') return (f & PENDING) !== 0;
    if (status === 'failed') return (f & FAILED) !== 0;
    if (status === 'ok') return (f & ALL_OK) !== 0;
    return VERIFICATIONS[this.cols.verification[i]!] === status;
  }

  /** Per-channel counts (one row per channel identity), O(channels). */
  channelStatus(): (ChannelStatus & { key: string })[] {
    const out: (ChannelStatus & { key: string })[] = [];
    for (const [ch, c] of this.counts.entries()) if (c && c.received > 0) out.push({ name: this.channelNames[ch]!, key: this.channels.name(ch), ...c });
    return out.sort((a, b) => a.name.localeCompare(b.name) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Writes the live rows and all that answers for them, copied (an index snapshot: ../base/imageParts.ts, ./indexImage.ts). */
  save(w: ImageWriter): void {
    const forward: [number, ForwardState[]][] = [];
    this.forward.forEach((f, k) => f && forward.push([k, f]));
    const maps = { reasons: [...this.reasons], received: [...this.received], forward, targetArrays: this.targetArrays };
    w.json({ rows: this.end - this.head, hidden: this.hidden, hiddenUpTo: this.hiddenUpTo, channelLast: this.channelLast, counts: this.counts, ...maps });
    this.cols.save(w, this.head, this.end);
    this.deliveryIds.save(w);
    for (const t of [this.channels, this.events, this.targetLists, this.targetNames]) t.save(w);
    this.arena.save(w);
  }

  /** The index save() wrote, its pending set deferred (call buildPendingSet()). */
  static async load(r: ImageReader): Promise<CompactIndex> {
    const x = new CompactIndex();
    const m = await r.json<IndexImage>();
    checkIndexImage(m);
    x.cols = await Columns.load(r, capacityFor, m.rows);
    x.end = m.rows;
    x.deliveryIds = await StringColumn.load(r, capacityFor(m.rows));
    [x.channels, x.events, x.targetLists, x.targetNames] = [await Interner.load(r), await Interner.load(r), await Interner.load(r), await Interner.load(r)];
    x.arena = await AttemptArena.load(r, x.targetNames);
    x.restore(m);
    return x;
  }

  private restore(m: IndexImage): void {
    this.hidden = m.hidden;
    this.hiddenUpTo = m.hiddenUpTo;
    this.channelLast = m.channelLast;
    this.counts = m.counts.map((c) => c ?? undefined);
    this.reasons = new Map(m.reasons);
    this.received = new Map(m.received);
    this.targetArrays = m.targetArrays.map((list) => list.map((t) => this.targetNames.intern(t)));
    this.forward = new Array<ForwardState[] | undefined>(m.rows).fill(undefined);
    for (const [k, states] of m.forward) this.forward[k] = states.map((f) => ({ ...f, target: this.targetNames.intern(f.target) }));
    this.channels.forEach((key, id) => (this.channelNames[id] = channelOfKey(key)));
    this.pendingDeferred = true;
  }
}
