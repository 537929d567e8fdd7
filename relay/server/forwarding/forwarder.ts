// Forwards journaled deliveries to their targets with the original bytes and headers (minus
// hop-by-hop), keep-alive connections (undici Agent), every attempt journaled, and retries on the
// service's schedule (time-scalable for tests). Concurrency is bounded overall and per target
// (lanes.ts), and every attempt has a total deadline (post.ts), so a slow target cannot starve
// the others. A target that answers 2xx again gets its parked backlog at once, in seq order;
// so does each target at start-up once its oldest pending forward went through. A target that
// cannot be connected to (refused, reset, DNS) is paused, as `service-hooks forward` pauses
// (../../shared/outages.ts, the one rule): no attempt is spent, its forwards are held (queued in seq
// order), its port is probed every 200 ms, and they go at once when it answers.
import { Agent, type Dispatcher } from 'undici';
import { SUBSCRIBER_TARGET, type ForwardAttempt, type ForwardState } from '../../../src/core/relay/protocol';
import { Lane } from './lanes';
import { DEFAULT_FORWARD_TIMEOUT_MS, forwardHeaders, postOnce } from '../../shared/attempt';
import { JournalClosedError } from '../journal/journalErrors';
import type { RelayStore } from '../base/storeTypes';
import type { RelayLog } from '../base/log';
import { classify, nextRetryDelay, parseRetryAfter, retrySchedule, scaledWait, scheduledDelay } from '../../../src/core/relay/forwardPolicy';
import { Outages } from '../../shared/outages';

export { DEFAULT_FORWARD_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, forwardHeaders, postOnce } from '../../shared/attempt';

/** Attempts in flight at once over every target. */
export const DEFAULT_FORWARD_CONCURRENCY = 64;
/** Attempts in flight at once to one target. */
export const DEFAULT_PER_TARGET_CONCURRENCY = 32;

export interface ForwarderOptions {
  /** The retry schedule (default the service's: forwardPolicy.retrySchedule). */
  schedule?: readonly number[];
  /** Speed-up of the schedule (forwardPolicy.scaledWait): 1000 turns a minute into 60 ms; Infinity: no waits. */
  timeScale?: number;
  /** Attempts in flight at once over every target (default 64). */
  concurrency?: number;
  /** Attempts in flight at once to one target (default 32, at most `concurrency`). */
  perTarget?: number;
  /** Total deadline of one attempt (default 10 s). */
  timeoutMs?: number;
  /** Answer bytes read at most per attempt (default 64 KiB). */
  maxResponseBytes?: number;
  dispatcher?: Dispatcher;
  now?: () => number;
  /** Operational log lines (a failed journal write of an attempt, a target down and back). */
  log?: RelayLog;
  /** Is anything listening at a down target's host and port? (default: a TCP connect) */
  probe?: (to: string) => Promise<boolean>;
  /** How often a down target is probed at first (default 200 ms). */
  probeEveryMs?: number;
}

/** Which pending forwards "retry now" takes off their schedule (all when both are absent). */
export interface RetryFilter {
  channel?: string;
  target?: string;
}

/** What a finished attempt asks for: a retry after a delay, the target's backlog released, or a wait for the target to answer. */
type Outcome = { retryInMs?: number; drain?: boolean; requeue?: boolean } | undefined;

/** A forward whose bytes are in memory (no journal read needed). */
interface Fresh {
  body: Buffer;
  headers: string[];
  /** A fresh delivery's journal write, still in flight while its first attempt runs. */
  durable?: Promise<unknown>;
}

/** Bodies of queued fresh deliveries kept in memory, in total, rather than read back from the journal. */
const MAX_HELD_BYTES = 32 * 1024 * 1024;

export class Forwarder {
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly schedule: readonly number[];
  private readonly timeScale: number;
  private readonly concurrency: number;
  private readonly perTarget: number;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number | undefined;
  private readonly now: () => number;
  private readonly log: RelayLog;
  private running = 0;
  private heldBytes = 0;
  private readonly lanes = new Map<string, Lane>();
  /** Round-robin position over the lanes when a slot frees. */
  private turn = 0;
  private readonly inflight = new Set<Promise<void>>();
  private stopped = false;
  private readonly outages: Outages;

  constructor(
    private readonly store: RelayStore,
    options: ForwarderOptions = {},
  ) {
    this.schedule = retrySchedule(options.schedule);
    this.timeScale = options.timeScale ?? 1;
    this.concurrency = Math.max(1, options.concurrency ?? DEFAULT_FORWARD_CONCURRENCY);
    this.perTarget = Math.max(1, Math.min(this.concurrency, options.perTarget ?? DEFAULT_PER_TARGET_CONCURRENCY));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? (() => undefined);
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: this.perTarget });
    this.outages = new Outages({
      probe: options.probe,
      everyMs: options.probeEveryMs,
      onDown: ({ to, error }) =>
        this.log(`forward: ${to} is unreachable (${error}); its deliveries are held, and its port is probed until it answers`, {
          level: 'warn',
          target: to,
        }),
      onUp: ({ to, pausedMs }) => {
        this.log(`forward: ${to} answers again after ${(pausedMs / 1000).toFixed(1)} s; sending what waited`, { target: to });
        this.pump();
      },
    });
  }

  /**
   * Starts the first attempt of a fresh delivery to each target at once (when its lane has a free
   * slot), in parallel with its journal write; the attempt is recorded only after the delivery
   * record is durable. (If the write fails, the sender gets no 200 and sends again: at least once,
   * never lost.) A lane without a free slot queues the forward once the record is durable.
   */
  deliver(seq: number, targets: readonly string[], body: Buffer, pairs: [string, string][], durable: Promise<unknown>): void {
    if (targets.length === 0 || this.stopped) return;
    const headers = forwardHeaders(pairs);
    for (const target of targets) {
      const lane = this.lane(target);
      if (lane.ready.length === 0 && this.hasSlot(lane)) this.start(lane, seq, { body, headers, durable });
      else
        void durable.then(
          () => this.enqueue(lane, [seq], { body, headers }),
          () => undefined,
        );
    }
  }

  /**
   * After a restart: each target's oldest pending forward is attempted at once; the others wait
   * where their schedule left off, unless that first attempt goes through, which releases the
   * target's whole backlog in seq order (see run()). Returns the number of pending forwards.
   */
  resume(): number {
    let n = 0;
    const probed = new Set<string>();
    for (const e of this.store.pending()) {
      // ascending by seq (RelayStore.pending)
      for (const f of e.summary.forward) {
        // A subscriber's retrying delivery is the subscriber's to retry, not ours.
        if (f.status !== 'pending' || f.target === SUBSCRIBER_TARGET) continue;
        n++;
        const lane = this.lane(f.target);
        if (!probed.has(f.target)) {
          probed.add(f.target);
          this.enqueue(lane, [e.seq]);
          continue;
        }
        const last = [...e.attempts].reverse().find((a) => a.target === f.target && !a.replay);
        const due = last ? Date.parse(last.at) + this.delay(f.attempts) : this.now();
        this.park(lane, e.seq, due - this.now());
      }
    }
    return n;
  }

  /**
   * "Retry pending now": takes the pending forwards waiting for their next scheduled attempt off
   * their timers and queues them in seq order (bounded concurrency). Returns how many were queued;
   * forwards already queued or in flight are not counted twice.
   */
  retryNow(filter: RetryFilter = {}): number {
    let n = 0;
    for (const lane of this.lanes.values()) {
      if (filter.target !== undefined && lane.target !== filter.target) continue;
      const seqs = lane.unparkAll((seq) => filter.channel === undefined || this.store.get(seq)?.summary.channel === filter.channel);
      n += this.enqueue(lane, seqs);
    }
    this.outages.probeNow();
    return n;
  }

  /** Forwards waiting for a slot or a scheduled attempt, and attempts in flight (for status and tests). */
  get stats(): { running: number; ready: number; parked: number } {
    let ready = 0;
    let parked = 0;
    for (const l of this.lanes.values()) {
      ready += l.ready.length;
      parked += l.parked.size;
    }
    return { running: this.running, ready, parked };
  }

  private lane(target: string): Lane {
    let lane = this.lanes.get(target);
    if (!lane) this.lanes.set(target, (lane = new Lane(target, this.perTarget)));
    return lane;
  }

  private delay(attemptsDone: number): number {
    return scaledWait(scheduledDelay(attemptsDone, this.schedule) ?? 0, this.timeScale);
  }

  private hasSlot(lane: Lane): boolean {
    return this.running < this.concurrency && lane.running < this.perTarget && !this.outages.isDown(lane.target);
  }

  /** Queues forwards to a lane (skipping those already queued or running); returns how many. */
  private enqueue(lane: Lane, seqs: number[], held?: Fresh): number {
    if (this.stopped) return 0;
    const fresh = seqs.filter((s) => !lane.busy.has(s));
    for (const s of fresh) lane.busy.add(s);
    // A fresh delivery queued behind a busy lane keeps its bytes while they fit the budget.
    if (held && fresh.length === 1 && this.heldBytes + held.body.length <= MAX_HELD_BYTES) {
      lane.held.set(fresh[0]!, held);
      this.heldBytes += held.body.length;
    }
    if (fresh.length === 1) lane.ready.add(fresh[0]!);
    else lane.ready.addMany(fresh);
    this.pump();
    return fresh.length;
  }

  private park(lane: Lane, seq: number, ms: number): void {
    if (this.stopped || lane.busy.has(seq)) return;
    if (ms <= 0) {
      this.enqueue(lane, [seq]);
      return;
    }
    clearTimeout(lane.parked.get(seq));
    const t = setTimeout(() => {
      lane.parked.delete(seq);
      this.enqueue(lane, [seq]);
    }, ms);
    lane.parked.set(seq, t);
  }

  /** Fills free slots from the lanes, round-robin, each lane in seq order. */
  private pump(): void {
    while (this.running < this.concurrency && !this.stopped) {
      const lanes = [...this.lanes.values()];
      let picked: Lane | undefined;
      for (let i = 0; i < lanes.length && !picked; i++) {
        const lane = lanes[(this.turn + i) % lanes.length]!;
        if (lane.ready.length > 0 && lane.running < this.perTarget && !this.outages.isDown(lane.target)) {
          picked = lane;
          this.turn = (this.turn + i + 1) % lanes.length;
        }
      }
      if (!picked) return;
      this.start(picked, picked.ready.shift()!);
    }
  }

  private start(lane: Lane, seq: number, fresh?: Fresh): void {
    if (!fresh && (fresh = lane.held.get(seq))) {
      lane.held.delete(seq);
      this.heldBytes -= fresh.body.length;
    }
    this.running++;
    lane.running++;
    lane.busy.add(seq);
    // The slot bounds attempts on the wire: it is freed once the answer is in, before the attempt's
    // journal record is durable (the forward stays busy until then, so it is not queued twice).
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.running--;
      lane.running--;
      this.pump();
    };
    const p = this.run(lane, seq, release, fresh)
      .catch((err: Error): Outcome => {
        this.log(`forward: delivery ${seq} to ${lane.target}: ${err.message}`, { level: 'error', seq, target: lane.target });
        return undefined;
      })
      .then((outcome) => {
        this.inflight.delete(p);
        release();
        lane.busy.delete(seq);
        if (outcome?.requeue)
          this.enqueue(lane, [seq]); // waits, in seq order, until the target answers
        else if (outcome?.retryInMs !== undefined) this.park(lane, seq, outcome.retryInMs);
        else if (outcome?.drain && lane.parked.size > 0) this.enqueue(lane, lane.unparkAll());
        this.pump();
      });
    this.inflight.add(p);
  }

  private pendingState(seq: number, target: string): ForwardState | undefined {
    const state = this.store.forwardState(seq, target);
    return state?.status === 'pending' ? state : undefined;
  }

  /** One attempt, journaled; says what to do next (the slot is freed first). */
  private async run(lane: Lane, seq: number, release: () => void, fresh?: Fresh): Promise<Outcome> {
    const target = lane.target;
    let body = fresh?.body;
    let headers = fresh?.headers;
    if (!fresh?.durable) {
      const state = this.pendingState(seq, target);
      if (!state) return;
    }
    if (!fresh) {
      const state = this.pendingState(seq, target)!;
      let r;
      try {
        r = await this.store.read(seq);
      } catch (err) {
        this.log(`forward: cannot read delivery ${seq} from the store (${(err as Error).message}); next try on the schedule`, {
          level: 'error',
          seq,
          target,
        });
        return { retryInMs: this.retryDelay(state.attempts + 1) };
      }
      if (!r) return;
      body = r.body;
      headers = forwardHeaders(r.meta.headers);
    }
    const attempt = await postOnce(this.dispatcherFor(target), target, headers!, body!, {
      timeoutMs: this.timeoutMs,
      maxResponseBytes: this.maxResponseBytes,
      now: this.now,
    });
    release();
    if (this.stopped && !attempt.ok) return; // interrupted by stop: stays pending for the next start
    if (
      fresh?.durable &&
      !(await fresh.durable.then(
        () => true,
        () => false,
      ))
    )
      return;
    const state = this.pendingState(seq, target);
    if (!state) return;
    if (classify(attempt) === 'unreachable') {
      // Nothing there: no attempt is spent (an app restarting on every change never uses up the
      // schedule); the forward waits in order and goes as soon as the target's port answers.
      this.outages.markDown(target, attempt.error ?? 'unreachable');
      return { requeue: true };
    }
    const attempts = state.attempts + 1;
    // The forwarding rules (forwardPolicy): a final 4xx is not retried; Retry-After replaces one wait.
    const wait = attempt.ok || classify(attempt) === 'final' ? undefined : this.waitAfter(attempts, attempt);
    const next: ForwardState = {
      target,
      status: attempt.ok ? 'ok' : wait === undefined ? 'failed' : 'pending',
      attempts,
      ...(attempt.status !== undefined ? { lastStatus: attempt.status } : {}),
    };
    if (wait !== undefined) next.nextAttemptAt = new Date(this.now() + wait).toISOString();
    try {
      await this.store.recordAttempt(seq, attempt, next, { lazy: true });
    } catch (err) {
      if (this.stopped || err instanceof JournalClosedError) return; // stopping: the forward stays pending in the journal
      // Not journaled: the forward stays pending with its old count; it is tried again on the schedule.
      this.log(`forward: could not journal attempt ${attempts} of delivery ${seq} to ${target} (${(err as Error).message}); next try on the schedule`, {
        level: 'error',
        seq,
        target,
        status: attempt.status,
        durationMs: attempt.durationMs,
      });
      return { retryInMs: this.retryDelay(attempts) };
    }
    if (wait !== undefined) return { retryInMs: wait };
    return attempt.ok ? { drain: true } : undefined; // back up: its parked backlog now, in seq order
  }

  /** The connections to `target`: its lane's own pool (a given dispatcher serves every target; a replay elsewhere: the shared one). */
  private dispatcherFor(target: string): Dispatcher {
    if (!this.ownsDispatcher) return this.dispatcher;
    return this.lanes.get(target)?.dispatcher ?? this.dispatcher;
  }

  /** The wait before attempt `attemptsDone + 1` after a retryable failure (scaled), or undefined: the schedule is used up. */
  private waitAfter(attemptsDone: number, attempt: ForwardAttempt): number | undefined {
    const retryAfterMs = parseRetryAfter(attempt.retryAfter, this.now());
    const wait = nextRetryDelay(attemptsDone, { schedule: this.schedule, retryAfterMs });
    return wait === undefined ? undefined : scaledWait(wait, this.timeScale);
  }

  /** The delay before retrying after a fault of ours: the schedule's, never 0 past its end. */
  private retryDelay(attemptsDone: number): number {
    return this.delay(attemptsDone) || this.delay(this.schedule.length - 1) || scaledWait(60_000, this.timeScale);
  }

  /** Replays a delivery now to its targets (or `to`), as-is or re-signed; records the attempts. */
  async replay(seq: number, opts: { to?: string; resignSecret?: string }): Promise<ForwardAttempt[] | undefined> {
    const r = await this.store.read(seq);
    const e = this.store.get(seq);
    if (!r || !e) return undefined;
    const headers = forwardHeaders(r.meta.headers, opts.resignSecret, r.body);
    // A subscriber's forward state (the editor, `service-hooks forward`) names no URL: the relay cannot post there.
    const targets = opts.to ? [opts.to] : e.summary.forward.map((f) => f.target).filter((t) => t !== SUBSCRIBER_TARGET);
    const out: ForwardAttempt[] = [];
    for (const target of targets) {
      const posted = await postOnce(this.dispatcherFor(target), target, headers, r.body, {
        timeoutMs: this.timeoutMs,
        maxResponseBytes: this.maxResponseBytes,
        now: this.now,
      });
      const attempt = { ...posted, replay: true };
      const state = e.summary.forward.find((f) => f.target === target);
      const next: ForwardState | undefined =
        state && attempt.ok ? { target, status: 'ok', attempts: state.attempts + 1, lastStatus: attempt.status } : undefined;
      await this.store.recordAttempt(seq, attempt, next);
      out.push(attempt);
    }
    return out;
  }

  /** Stops scheduling, aborts in-flight attempts (they stay pending in the journal). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.outages.stop();
    for (const lane of this.lanes.values()) lane.clear();
    this.heldBytes = 0;
    // Cut in-flight attempts: they stay pending in the journal.
    if (this.ownsDispatcher) await Promise.all([this.dispatcher.destroy().catch(() => undefined), ...[...this.lanes.values()].map((l) => l.destroy())]);
    await Promise.allSettled([...this.inflight]);
  }
}
