// The store's in-memory index, compact: one row per delivery in packed columns (seq, record
// location, receipt time, shape: channel / event / target list / verification, forward flags,
// a one-target row's forward state and first attempt: ./indexColumns.ts), the delivery id
// (./idColumn.ts) and the rare reason beside them, and the rest of the forward states and
// attempts by seq for the deliveries that have them (./forwardStates.ts, ./rowAttempts.ts).
// Summaries are built on demand for the rows asked for. Per-channel counters, the set of pending
// seqs and (while few) of failed ones are kept up to date as rows arrive, are forwarded and are
// dropped, so status, pending() and a page of a rare status never walk every row.
import type { ChannelStatus, ForwardAttempt, ForwardState, RelayDeliverySummary } from '../../../src/core/relay/protocol';
import type { StoreListQuery } from '../base/storeTypes';
import { Interner } from './interner';
import type { AttemptFields } from './attemptArena';
import { sizeFields } from '../base/rejected';
import { IdColumn } from './idColumn';
import { channelKey, channelOfKey } from '../base/channelKey';
import { ALL_OK, Columns, FAILED, HIDDEN, PENDING, REJECTED, VERIFICATIONS } from './indexColumns';
import { Shapes } from './shapes';
import { ForwardStates } from './forwardStates';
import { RowAttempts } from './rowAttempts';
import { RecordSizes } from './recordSizes';
import { RowCodes } from './rowCodes';
import { SparseSeqs, seqsBetween } from './sparseSeqs';
import { LazyRow, NO_REF, type IndexedDelivery, type IndexRow, type RecordRef, type StateFields } from './indexRows';

export type { AttemptFields } from './attemptArena';
export { NO_REF, type IndexedDelivery, type IndexRow, type RecordRef, type StateFields } from './indexRows';

/** Rows a filtered list walks before it looks up the rows of a rare status (pending, failed) by seq instead. */
const WALK_FIRST = 4096;
/** Failed rows kept by seq at most (past it the set gives up: ./sparseSeqs.ts). */
const FAILED_SEQS_CAP = 65_536;

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
  /** An instance of each class the index creates only once rows came, for its snapshot (../base/objectImage.ts loadObject). */
  static imageSamples(): object[] {
    return IdColumn.imageSamples();
  }

  private cols = new Columns();
  /** Live rows are [head, end). */
  private head = 0;
  private end = 0;
  private readonly deliveryIds = new IdColumn();
  private readonly reasons = new Map<number, string>();
  /** Rejected deliveries stored as a prefix (rare): their received size and sha256. */
  private readonly received = new Map<number, { size: number; sha256: string }>();
  /** Channel identities (name and generation: ../base/channelKey.ts), and the name of each id. */
  private readonly channels = new Interner();
  private readonly channelNames: string[] = [];
  /** The highest seq each channel identity received (by channel id). */
  private readonly channelLast: number[] = [];
  private readonly events = new Interner();
  private readonly targetLists = new Interner();
  /** Parsed target lists, by targetLists id. */
  private readonly targetArrays: string[][] = [];
  private readonly targetNames = new Interner();
  /** Counters by channel id (dense). */
  private readonly counts: (Counts | undefined)[] = [];
  /** The last row's channel, event and target list with their ids: rows mostly repeat them (a restart inserts a million). */
  private last = {
    channel: '',
    gen: undefined as string | undefined,
    channelId: -1,
    event: undefined as string | undefined,
    eventId: 0,
    target: '',
    oneTarget: false,
    targetsId: -1,
    shape: -1,
  };
  private readonly shapes = new Shapes();
  private readonly codes = new RowCodes();
  private readonly states = new ForwardStates(this.codes, this.targetNames);
  private readonly attempts = new RowAttempts(this.targetNames, this.codes);
  private readonly sizes = new RecordSizes();
  private readonly pendingSeqs = new Set<number>();
  /** The failed rows' seqs while they are few (./sparseSeqs.ts): a list of failed deliveries reads them. */
  private readonly failedSeqs = new SparseSeqs(FAILED_SEQS_CAP);
  /** While a journal loads: the pending and failed sets are left alone and built once at the end (buildPendingSet). */
  private pendingDeferred = false;

  /** Live rows that are hidden (HIDDEN). */
  private hidden = 0;
  /** Rejected rows up to this seq are hidden. */
  private hiddenUpTo = 0;

  get size(): number {
    return this.end - this.head - this.hidden;
  }

  get firstSeq(): number | undefined {
    return this.size > 0 ? this.cols.seq.get(this.head) : undefined;
  }

  /** Adds a delivery of `size` body bytes; seqs arrive ascending (an older or repeated seq is ignored). */
  insert(d: IndexedDelivery, size: number, loc: RecordRef = NO_REF): boolean {
    if (this.size > 0 && d.seq <= this.cols.seq.get(this.end - 1)) return false;
    if (this.end === this.cols.capacity) this.grow();
    const i = this.end++;
    const c = this.cols;
    const targets = d.verification === 'rejected' ? [] : d.targets;
    c.seq.push(i, d.seq);
    c.segment.push(i, loc.segment);
    c.offset.set(i, loc.offset, this.head);
    this.sizes.set(c, i, d.seq, size >>> 0, loc.length >>> 0);
    c.receivedMs.set(i, d.receivedMs, this.head);
    const last = this.last;
    let same = true;
    if (d.channel !== last.channel || d.gen !== last.gen || last.channelId < 0) {
      last.channelId = this.channelId(channelKey(d.channel, d.gen));
      last.channel = d.channel;
      last.gen = d.gen;
      same = false;
    }
    this.channelLast[last.channelId] = d.seq;
    if (d.event !== last.event) {
      last.eventId = d.event === undefined ? 0 : this.events.id(d.event) + 1;
      last.event = d.event;
      same = false;
    }
    if (!(targets.length === 1 && last.oneTarget && targets[0] === last.target)) {
      last.targetsId = this.targetListId(targets);
      last.oneTarget = targets.length === 1;
      last.target = last.oneTarget ? targets[0]! : '';
      same = false;
    }
    const verification = d.verification === 'verified' ? 0 : d.verification === 'unverified' ? 1 : REJECTED;
    if (!same || last.shape < 0 || this.shapes.verification[last.shape] !== verification)
      last.shape = this.shapes.id(last.channelId, last.eventId, last.targetsId, verification);
    c.shape.set(i, last.shape, this.head);
    c.flags[i] = targets.length > 0 ? PENDING : 0;
    if (d.deliveryIdUtf8) this.deliveryIds.pushBytes(d.deliveryIdUtf8);
    else this.deliveryIds.push(d.deliveryId);
    c.code[i] = 0;
    if (d.reason) this.reasons.set(d.seq, d.reason);
    if (d.received) this.received.set(d.seq, d.received);
    this.count(i, +1);
    return true;
  }

  /** Row `i`'s shape parts. */
  private channelAt(i: number): number {
    return this.shapes.channel[this.cols.shape.get(i)]!;
  }

  private verificationAt(i: number): number {
    return this.shapes.verification[this.cols.shape.get(i)]!;
  }

  private targetsAt(i: number): string[] {
    return this.targetArrays[this.shapes.targets[this.cols.shape.get(i)]!]!;
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
    return this.channels.name(this.channelAt(i));
  }

  private grow(): void {
    const live = this.end - this.head; // (hidden rows too: this.size leaves them out, and so lost the newest rows)
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
    const i = this.lowerBound(seq);
    return i < this.end && this.cols.seq.get(i) === seq && !(this.cols.flags[i]! & HIDDEN) ? i : -1;
  }

  /** Hides every rejected row with seq <= `upTo` (the rejected deliveries' own retention). */
  hideRejectedUpTo(upTo: number): void {
    if (upTo <= this.hiddenUpTo) return;
    const stop = this.lowerBound(upTo + 1);
    for (let i = this.lowerBound(this.hiddenUpTo + 1); i < stop; i++) {
      if (this.verificationAt(i) !== REJECTED || this.cols.flags[i]! & HIDDEN) continue;
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
    // The counters say whether more than `keep` are held: a relay under its limit (most) walks no row.
    let held = 0;
    for (const c of this.counts) if (c) held += rejected ? c.rejected : c.verified + c.unverified;
    if (held <= keep) return 0;
    let n = 0;
    for (let i = this.end - 1; i >= this.head; i--) {
      const f = this.cols.flags[i]!;
      if (f & HIDDEN || (this.verificationAt(i) === REJECTED) !== rejected) continue;
      if (n++ === keep) return this.cols.seq.get(i);
    }
    return 0;
  }

  /** First row with seq >= `seq` (seqs mostly go one apart: ./packedColumns.ts RunColumn). */
  private lowerBound(seq: number): number {
    return this.cols.seq.lowerBound(seq, this.head, this.end);
  }

  applyAttempt(seq: number, attempt: AttemptFields, state?: StateFields): boolean {
    const i = this.find(seq);
    if (i < 0) return false;
    const targets = this.targetsAt(i);
    this.attempts.push(this.cols, i, seq, targets.length === 1 ? targets[0] : undefined, attempt);
    if (state) {
      this.count(i, -1);
      this.states.apply(this.cols, i, seq, targets, state);
      this.count(i, +1);
    }
    return true;
  }

  /** The forward states of row `i`. */
  private forwardOf(i: number): ForwardState[] {
    return this.states.of(this.cols, i, this.cols.seq.get(i), this.targetsAt(i));
  }

  private count(i: number, sign: 1 | -1): void {
    const ch = this.channelAt(i);
    let c = this.counts[ch];
    if (!c) this.counts[ch] = c = { received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0, pending: 0 };
    const f = this.cols.flags[i]!;
    c.received += sign;
    c[VERIFICATIONS[this.verificationAt(i)]!] += sign;
    if (f & ALL_OK) c.forwarded += sign;
    if (f & FAILED) c.failed += sign;
    if (f & PENDING) c.pending += sign;
    if (this.pendingDeferred) return;
    const seq = this.cols.seq.get(i);
    if (f & PENDING && sign > 0) this.pendingSeqs.add(seq);
    else if (sign < 0) this.pendingSeqs.delete(seq);
    if (f & FAILED && sign > 0) this.failedSeqs.add(seq);
    else if (sign < 0) this.failedSeqs.delete(seq);
  }

  /**
   * Stops keeping the pending set until buildPendingSet(). At a restart nearly every delivery is
   * added to the set by its record and removed again by its attempt's: a third of the load's CPU
   * at a million deliveries went to that churn.
   */
  deferPendingSet(): void {
    this.pendingDeferred = true;
    this.pendingSeqs.clear();
    this.failedSeqs.reset();
  }

  /** Builds the pending and failed sets from the rows' flags (one pass over a typed array) and keeps them again. */
  buildPendingSet(): void {
    this.pendingDeferred = false;
    this.pendingSeqs.clear();
    this.failedSeqs.reset();
    const { flags, seq } = this.cols;
    for (let i = this.head; i < this.end; i++) {
      const f = flags[i]! & (PENDING | FAILED | HIDDEN);
      if (f === 0 || f & HIDDEN) continue;
      if (f & PENDING) this.pendingSeqs.add(seq.get(i));
      if (f & FAILED) this.failedSeqs.add(seq.get(i));
    }
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
      const seq = this.cols.seq.get(i);
      this.reasons.delete(seq);
      this.received.delete(seq);
      this.states.drop(seq);
      this.sizes.drop(seq);
      this.codes.drop(seq);
      this.attempts.drop(seq);
    }
    this.deliveryIds.dropFront(dropped);
    this.head = cut;
    if (this.head > 4096 && this.head * 2 > this.end) {
      this.cols = this.cols.resized(this.cols.capacity, this.head, this.end);
      this.end -= this.head;
      this.head = 0;
    }
    this.attempts.compact();
    return visible;
  }

  seqAt(i: number): number {
    return this.cols.seq.get(i);
  }

  receivedMsAt(i: number): number {
    return this.cols.receivedMs.get(i);
  }

  /** Rows [first, last) in seq order. */
  get rows(): { first: number; last: number } {
    return { first: this.head, last: this.end };
  }

  summary(i: number): RelayDeliverySummary {
    const c = this.cols;
    const seq = c.seq.get(i);
    const shape = c.shape.get(i);
    const reason = this.reasons.get(seq);
    const eventId = this.shapes.event[shape]!;
    const event = eventId > 0 ? this.events.name(eventId - 1) : undefined;
    const deliveryId = this.deliveryIds.get(i - this.head);
    return {
      seq,
      channel: this.channelNames[this.shapes.channel[shape]!]!,
      receivedAt: new Date(c.receivedMs.get(i)).toISOString(),
      verification: VERIFICATIONS[this.shapes.verification[shape]!]!,
      ...(reason ? { reason } : {}),
      event,
      deliveryId,
      ...sizeFields({ received: this.received.get(seq) }, this.sizes.size(c, i, seq)),
      forward: this.forwardOf(i).map((f) => ({ ...f })),
    };
  }

  /** Row `i`; its summary and attempts are built when first read (most callers need neither). */
  row(i: number): IndexRow {
    const c = this.cols;
    const seq = c.seq.get(i);
    const loc = { segment: c.segment.get(i), offset: c.offset.get(i), length: this.sizes.length(c, i, seq) };
    return new LazyRow(this, seq, c.receivedMs.get(i), loc, this.sizes.size(c, i, seq));
  }

  /** The forward state of one target of row `i` (for a one-target row, no summary built). */
  forwardStateAt(i: number, target: string): ForwardState | undefined {
    return this.forwardOf(i).find((f) => f.target === target);
  }

  /** The attempts of row `i`, oldest first. */
  attemptsAt(i: number): ForwardAttempt[] {
    const targets = this.targetsAt(i);
    return this.attempts.list(this.cols, i, this.cols.seq.get(i), targets.length === 1 ? targets[0] : undefined);
  }

  /** Rows with seq > since, ascending, optionally one channel identity (../base/channelKey.ts). */
  *after(since: number, channel?: string): Generator<IndexRow> {
    const ch = channel === undefined ? -1 : this.channels.find(channel);
    if (channel !== undefined && ch < 0) return;
    for (let i = this.lowerBound(since + 1); i < this.end; i++) if ((ch < 0 || this.channelAt(i) === ch) && !(this.cols.flags[i]! & HIDDEN)) yield this.row(i);
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
    // The filter per row: its flags against `need`, its shape against a table made for this query.
    const need = q.status === 'pending' ? PENDING : q.status === 'failed' ? FAILED : q.status === 'ok' ? ALL_OK : 0;
    const byVerification = q.status !== undefined && need === 0;
    const shapes = this.shapes;
    const shapeOk =
      ch >= 0 || byVerification
        ? Uint8Array.from(shapes.channel, (c, s) => ((ch < 0 || c === ch) && (!byVerification || VERIFICATIONS[shapes.verification[s]!] === q.status) ? 1 : 0))
        : undefined;
    const { flags, shape } = this.cols;
    const wanted = (i: number) => {
      const f = flags[i]!;
      return !(f & HIDDEN || (need && !(f & need)) || (shapeOk && !shapeOk[shape.get(i)]));
    };
    for (let i = start - 1; i >= stop && out.length < limit; i--) {
      // Rows with a rare flag are looked up by seq once a walk has not filled the page soon.
      const rare = start - 1 - i === WALK_FIRST ? this.seqsFlagged(need, this.seqAt(stop) - 1, this.seqAt(i) + 1) : undefined;
      if (rare) {
        for (const seq of rare) {
          const row = this.find(seq);
          if (row >= 0 && wanted(row)) out.push(this.summary(row));
          if (out.length === limit) break;
        }
        return out;
      }
      if (wanted(i)) out.push(this.summary(i));
    }
    return out;
  }

  /** The seqs in (after, below) of the rows with flag `need`, newest first, when a set keeps them (PENDING; FAILED while few). */
  private seqsFlagged(need: number, after: number, below: number): number[] | undefined {
    if (this.pendingDeferred) return undefined;
    if (need === FAILED) return this.failedSeqs.between(after, below);
    return need === PENDING ? seqsBetween(this.pendingSeqs, after, below) : undefined;
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

  /** Per-channel counts (one row per channel identity), O(channels). */
  channelStatus(): (ChannelStatus & { key: string })[] {
    const out: (ChannelStatus & { key: string })[] = [];
    for (const [ch, c] of this.counts.entries()) if (c && c.received > 0) out.push({ name: this.channelNames[ch]!, key: this.channels.name(ch), ...c });
    return out.sort((a, b) => a.name.localeCompare(b.name) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}
