// THE forward loop of a subscriber (`service-hooks forward` and the editor; the relay's own
// --forward applies the same rules in relay/server/forwarding/forwarder.ts). Each delivery of the subscription
// goes to the app once (./forward.ts), and the rules of src/core/relay/forwardPolicy decide:
//   2xx        delivered: acknowledged with the status
//   final 4xx  acknowledged as handled with the status (the relay records it failed); not retried
//   retry      (5xx, 408, 429, time-out) acknowledged, so later deliveries go on, and kept in the
//              retrying set: retried on the schedule (Retry-After honoured) until 2xx, a final
//              answer or the end of the schedule; each later result is reported to the relay
//   unreachable (refused, reset, DNS) the stream pauses in order; the app's port is probed every
//              `probeEveryMs` and the stream drains as soon as it answers (../shared/outages.ts:
//              the same pause the relay's own --forward uses)
// The resume point and the retrying set are kept in a CursorStore (a 0600 file for the CLI, the
// editor's global state), so a restart resumes after the last handled delivery and the retrying
// ones are retried on their schedule: the subscription starts before the oldest retrying one (the
// relay sends it again) and deliveries handled before the restart are acknowledged, not forwarded.
// Under a subscription with concurrency above 1 (`forward --parallel N`) deliveries are handled
// several at once: the resume point moves only over those whose older ones are all handled too.
import { classify, nextRetryDelay, parseRetryAfter } from '../../src/core/relay/forwardPolicy';
import type { DeliveryMessage, ForwardStatus } from '../../src/core/relay/protocol';
import type { DeliveryHandled } from './subscribe';
import { forwardDelivery, type ForwardResult } from './forward';
import { InOrder } from './inOrder';
import { Outages, originOf, realClock, ForwardingStopped } from '../shared/outages';
import type { EngineClock, ForwardCursor, ForwardEngineOptions, ForwardEvent, RetryingDelivery } from './forwardTypes';

export type { CursorStore, EngineClock, ForwardCursor, ForwardEngineOptions, ForwardEvent, RetryingDelivery } from './forwardTypes';

type Delivery = DeliveryMessage['delivery'];

interface Entry extends RetryingDelivery {
  delivery?: Delivery;
  timer?: unknown;
  running?: boolean;
  /** Its time came before the relay sent it again (after a restart). */
  due?: boolean;
}

export class ForwardEngine {
  private readonly clock: EngineClock;
  private readonly entries = new Map<number, Entry>();
  private readonly outages: Outages;
  private readonly abort = new AbortController();
  private last: number | undefined;
  /** Deliveries being handled, in the order they came: the resume point moves over a finished prefix. */
  private readonly order = new InOrder();
  private stopped = false;
  /** The last cursor write asked for (resolves when it is done). */
  private saving: Promise<void> = Promise.resolve();
  /** A write asked for and not started yet: later asks join it (it takes the state when it starts). */
  private queuedSave: Promise<void> | undefined;
  /** When the last cursor write started (clock time), and a write waiting for saveSpacingMs (stop() lets it go). */
  private lastSaveAt = -Infinity;
  private spacing: (() => void) | undefined;
  private roomWaiters: (() => void)[] = [];
  /** holdPerTarget: per target origin, the end of the chain of its held deliveries (run in order). */
  private readonly lanes = new Map<string, Promise<void>>();

  constructor(private readonly o: ForwardEngineOptions) {
    this.clock = o.clock ?? realClock;
    this.outages = new Outages({
      clock: this.clock,
      probe: o.probe,
      everyMs: o.probeEveryMs,
      onDown: ({ to, error }) => this.emit({ kind: 'paused', to, error }),
      onUp: ({ to, pausedMs }) => this.emit({ kind: 'resumed', to, pausedMs }),
    });
    const c = o.cursor.load();
    this.last = c?.lastSeq;
    for (const r of c?.retrying ?? []) {
      const e: Entry = { ...r };
      this.entries.set(r.seq, e);
      this.arm(e);
    }
  }

  /**
   * The seq to subscribe after: the last delivery handled, or just before the oldest retrying one
   * (the relay sends it again). Undefined: never subscribed (start at the relay's head).
   */
  get since(): number | undefined {
    let oldest: number | undefined;
    for (const seq of this.entries.keys()) if (oldest === undefined || seq < oldest) oldest = seq;
    if (oldest === undefined) return this.last;
    return Math.min(this.last ?? oldest - 1, oldest - 1);
  }

  /** The last delivery handled (forwarded, refused for good, moved to the retrying set, or skipped). */
  get lastSeq(): number | undefined {
    return this.last;
  }

  /** The subscription opened at the relay's head `head`: the first resume point, if there is none. */
  opened(head: number): void {
    if (this.last !== undefined) return;
    this.last = head;
    void this.save();
  }

  /** Start after `seq` (`--since`): retrying deliveries at or before it are forgotten. */
  startAfter(seq: number): void {
    this.last = seq;
    for (const e of [...this.entries.values()]) if (e.seq <= seq) this.forget(e);
    void this.save();
  }

  /** Deliveries waiting for their next attempt, oldest first. */
  retrying(): (RetryingDelivery & { inMs: number; running: boolean })[] {
    const now = this.clock.now();
    return [...this.entries.values()]
      .sort((a, b) => a.seq - b.seq)
      .map(({ delivery: _d, timer: _t, due: _u, running, ...r }) => ({ ...r, inMs: Math.max(0, r.nextAt - now), running: running === true }));
  }

  /** Apps the stream is paused on (unreachable), and since when. */
  paused(): { to: string; since: number; error: string }[] {
    return this.outages.list();
  }

  /** The subscription's handler: resolves when the delivery may be acknowledged (with the app's status). */
  handle = async (d: Delivery): Promise<DeliveryHandled> => {
    if (this.stopped) throw new ForwardingStopped();
    const held = this.entries.get(d.seq);
    if (held) {
      // A retrying delivery sent again after a restart: kept for its next attempt.
      held.delivery ??= d;
      if (held.due) void this.runRetry(held);
      return;
    }
    if (this.last !== undefined && d.seq <= this.last) return; // handled before the restart
    this.order.start(d.seq, undefined);
    if (!('bodyBase64' in d) || d.headers === undefined) {
      // 'in': reading a decoded body's bodyBase64 would encode it
      // The relay cannot read its body, and never will (a damaged record; its log says which):
      // failing on it made the subscription reconnect and be sent it again, without end.
      this.emit({
        kind: 'skipped',
        seq: d.seq,
        channel: d.channel,
        event: d.event,
        reason: "the relay cannot read its body (a damaged record: see the relay's log)",
      });
      await this.advance(d.seq);
      return;
    }
    const to = d.verification === 'rejected' ? undefined : this.o.target(d.channel, d.event);
    if (!to) {
      const about = { kind: 'skipped', seq: d.seq, channel: d.channel, event: d.event, id: d.deliveryId } as const;
      this.advance(d.seq);
      if (d.verification === 'rejected') return this.emit({ ...about, reason: `rejected: ${d.reason ?? 'bad signature'}` });
      const byFilter = typeof this.o.skipsByFilter === 'function' ? this.o.skipsByFilter(d.channel) : this.o.skipsByFilter;
      if (!byFilter) return this.emit({ ...about, reason: 'no forward URL for this channel' });
      this.emit({ ...about, reason: 'skipped by the filter', filter: true });
      return { skipped: 'filter' };
    }
    await this.room();
    return this.forwardNew(d, to);
  };

  private async forwardNew(d: Delivery, to: string): Promise<DeliveryHandled> {
    const about = { seq: d.seq, channel: d.channel, event: d.event, to, id: d.deliveryId };
    for (;;) {
      if (this.o.holdPerTarget && this.outages.isDown(to)) return this.holdFor(d, to);
      await this.reachable(to);
      const r = await this.attempt(d, to);
      const outcome = classify(r);
      if (outcome === 'unreachable') {
        this.markDown(to, r.error ?? 'unreachable');
        continue;
      }
      if (outcome === 'retry') {
        const wait = this.waitAfter(1, r);
        if (wait !== undefined) {
          const e: Entry = { seq: d.seq, channel: d.channel, event: d.event, attempts: 1, nextAt: this.clock.now() + wait, delivery: d, ...this.lastOf(r) };
          this.entries.set(d.seq, e);
          this.arm(e);
          this.emit({ ...about, kind: 'retrying', attempts: 1, inMs: wait, durationMs: r.durationMs, ...this.shown(r) });
        } else this.emit({ ...about, kind: 'failed', attempts: 1, durationMs: r.durationMs, ...this.shown(r) });
      } else this.emit({ ...about, kind: outcome, status: r.status!, durationMs: r.durationMs, attempts: 1 });
      this.advance(d.seq);
      return r.status === undefined ? undefined : { forwarded: { status: r.status } };
    }
  }

  /**
   * holdPerTarget: `d`'s target is down. It is kept with the retrying deliveries (no attempt
   * spent; a restart keeps it), acknowledged so the stream goes on, and attempted after the ones
   * held for the same target before it, once the target answers.
   */
  private holdFor(d: Delivery, to: string): DeliveryHandled {
    const e: Entry = { seq: d.seq, channel: d.channel, event: d.event, attempts: 0, nextAt: this.clock.now(), delivery: d, lastError: 'unreachable' };
    this.entries.set(d.seq, e);
    const lane = originOf(to);
    const next = (this.lanes.get(lane) ?? Promise.resolve()).then(() => this.runRetry(e));
    this.lanes.set(lane, next);
    void next.then(() => this.lanes.get(lane) === next && this.lanes.delete(lane));
    this.advance(d.seq);
  }

  /** One retry of a retrying delivery (its timer fired, or Retry Now). */
  private async runRetry(e: Entry): Promise<void> {
    if (e.running || this.stopped || this.entries.get(e.seq) !== e) return;
    if (!e.delivery) {
      e.due = true; // the relay has not sent it again yet: it runs when it arrives
      return;
    }
    const to = this.o.target(e.channel, e.event);
    if (!to) return this.settle(e, { kind: 'skipped', seq: e.seq, channel: e.channel, event: e.event, reason: 'no forward URL for this channel' });
    e.running = true;
    e.due = false;
    try {
      for (;;) {
        await this.reachable(to);
        const r = await this.attempt(e.delivery, to);
        if (this.entries.get(e.seq) !== e) return; // skipped meanwhile
        const outcome = classify(r);
        if (outcome === 'unreachable') {
          this.markDown(to, r.error ?? 'unreachable');
          continue;
        }
        e.attempts++;
        const about = { seq: e.seq, channel: e.channel, event: e.event, to, id: e.delivery.deliveryId, attempts: e.attempts, durationMs: r.durationMs };
        const wait = outcome === 'retry' ? this.waitAfter(e.attempts, r) : undefined;
        if (wait !== undefined) {
          Object.assign(e, { nextAt: this.clock.now() + wait }, this.lastOf(r));
          this.arm(e);
          this.emit({ ...about, kind: 'retrying', inMs: wait, ...this.shown(r) });
          this.report(e.seq, r.status, 'pending');
          void this.save(); // not awaited: `running` must be off before the next timer can fire
          return;
        }
        if (outcome === 'retry') this.settle(e, { ...about, kind: 'failed', ...this.shown(r) }, r.status, 'failed');
        else this.settle(e, { ...about, kind: outcome, status: r.status!, durationMs: r.durationMs }, r.status, outcome === 'delivered' ? 'ok' : 'failed');
        return;
      }
    } catch (err) {
      if (!(err instanceof ForwardingStopped)) throw err;
    } finally {
      e.running = false;
    }
  }

  /**
   * A delivery the relay sent again on request (Subscription onReplay): posted to the app once
   * more, whatever was acknowledged, without moving the resume point; the app's answer is
   * reported to the relay as a replay. One still retrying is simply attempted now.
   */
  replay = async (d: Delivery): Promise<void> => {
    if (this.stopped) return;
    const held = this.entries.get(d.seq);
    if (held) {
      held.delivery ??= d;
      this.retryNow(d.seq);
      return;
    }
    const to = d.verification === 'rejected' ? undefined : this.o.target(d.channel, d.event);
    const about = { seq: d.seq, channel: d.channel, event: d.event, to, id: d.deliveryId };
    if (!to)
      return this.emit({
        ...about,
        kind: 'skipped',
        reason: d.verification === 'rejected' ? `replay of a rejected delivery: ${d.reason ?? 'bad signature'}` : 'replay: no forward URL for this channel',
      });
    let r: ForwardResult;
    try {
      r = await this.attempt(d, to);
    } catch (err) {
      if (err instanceof ForwardingStopped) return;
      throw err;
    }
    this.emit({ ...about, kind: 'replayed', durationMs: r.durationMs, ...this.shown(r) });
    if (r.status !== undefined) this.o.report?.(d.seq, { status: r.status, state: classify(r) === 'delivered' ? 'ok' : 'failed', replay: true });
  };

  /** Attempts the retrying deliveries (all, or `seq`) now, and probes paused apps now. Returns how many were started. */
  retryNow(seq?: number): number {
    let n = 0;
    for (const e of this.entries.values()) {
      if ((seq !== undefined && e.seq !== seq) || e.running) continue;
      e.nextAt = this.clock.now();
      this.arm(e, 0);
      n++;
    }
    if (seq === undefined) this.outages.probeNow();
    return n;
  }

  /** Stops retrying `seq` (the relay keeps its last result; `service-hooks replay` sends it again). */
  skip(seq: number): boolean {
    const e = this.entries.get(seq);
    if (!e) return false;
    this.settle(e, { kind: 'skipped', seq, channel: e.channel, event: e.event, reason: 'skipped' }, e.lastStatus, 'failed');
    return true;
  }

  /** Ends everything: timers cleared, a handler waiting for the app throws (its delivery is not acknowledged). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort(new ForwardingStopped());
    for (const e of this.entries.values()) this.clock.clearTimeout(e.timer);
    this.outages.stop();
    for (const w of this.roomWaiters.splice(0)) w();
    this.spacing?.();
  }

  /** Resolves once everything handled so far is in the cursor store. */
  flushed(): Promise<void> {
    return this.saving;
  }

  private async attempt(d: Delivery, to: string): Promise<ForwardResult> {
    if (this.stopped) throw new ForwardingStopped();
    const r = this.o.attempt
      ? await this.o.attempt(d, to, this.abort.signal)
      : await forwardDelivery(d, to, { timeoutMs: this.o.timeoutMs, signal: this.abort.signal });
    if (this.stopped) throw new ForwardingStopped();
    return r;
  }

  private waitAfter(attemptsDone: number, r: ForwardResult): number | undefined {
    return nextRetryDelay(attemptsDone, { schedule: this.o.schedule, retryAfterMs: parseRetryAfter(r.retryAfter, this.clock.now()) });
  }

  /** What an entry keeps of a failed attempt. */
  private lastOf(r: ForwardResult): { lastStatus: number | undefined; lastError: string | undefined } {
    return { lastStatus: r.status, lastError: r.status === undefined ? r.error : undefined };
  }

  /** What an event says of an attempt. */
  private shown(r: ForwardResult): { status?: number; error?: string } {
    return r.status !== undefined ? { status: r.status } : { error: r.error };
  }

  private arm(e: Entry, ms = e.nextAt - this.clock.now()): void {
    this.clock.clearTimeout(e.timer);
    if (this.stopped) return;
    e.timer = this.clock.setTimeout(() => void this.runRetry(e), Math.max(0, ms));
  }

  /** A retrying delivery is done (delivered, refused for good, given up or skipped). */
  private settle(e: Entry, event: ForwardEvent, status?: number, state?: ForwardStatus): void {
    this.forget(e);
    this.emit(event);
    if (state) this.report(e.seq, status, state);
    void this.save();
  }

  private forget(e: Entry): void {
    this.clock.clearTimeout(e.timer);
    this.entries.delete(e.seq);
    for (const w of this.roomWaiters.splice(0)) w();
  }

  private report(seq: number, status: number | undefined, state: ForwardStatus): void {
    if (status !== undefined) this.o.report?.(seq, { status, state });
  }

  /** Waits while the retrying set is full. */
  private async room(): Promise<void> {
    while (this.entries.size >= (this.o.maxRetrying ?? 256)) {
      await new Promise<void>((r) => this.roomWaiters.push(r));
      if (this.stopped) throw new ForwardingStopped();
    }
  }

  /** Resolves at once, or when the app of `to` answers its probe again. */
  private reachable(to: string): Promise<void> {
    return this.outages.reachable(to);
  }

  private markDown(to: string, error: string): void {
    if (!this.stopped) this.outages.markDown(to, error);
  }

  /**
   * A delivery is handled: the resume point moves past it. The cursor write is not awaited: the
   * next delivery goes to the app while it runs (an fsync'd file write per delivery would be the
   * stream's pace), and the deliveries handled meanwhile share the next write.
   */
  private advance(seq: number): void {
    for (const done of this.order.finish(seq)) if (this.last === undefined || done.seq > this.last) this.last = done.seq;
    void this.save();
  }

  /**
   * Keeps the cursor, group-commit style: one write at a time, and every ask made while one runs
   * is folded into a single next write of the state as it is when that write starts. So a crash
   * (not a stop: stop() then flushed() waits for the last write) forwards again at most the
   * deliveries handled during the write in flight (and in saveSpacingMs before it); never skips one.
   */
  private save(): Promise<void> {
    if (this.queuedSave) return this.queuedSave;
    const write = () => {
      this.queuedSave = undefined;
      this.lastSaveAt = this.clock.now();
      return this.o.cursor.save(this.snapshot());
    };
    const next = this.saving
      .then(() => {
        const wait = this.spaced();
        return wait ? wait.then(write) : write();
      })
      .then(undefined, (err: Error) => this.o.log?.(`forward: could not keep the resume point (${err.message}); a restart may forward some deliveries again`));
    this.queuedSave = next;
    this.saving = next;
    return next;
  }

  /** Resolves once saveSpacingMs have passed since the last write started; undefined: no need to wait (or stopped). */
  private spaced(): Promise<void> | undefined {
    const wait = this.lastSaveAt + (this.o.saveSpacingMs ?? 0) - this.clock.now();
    if (wait <= 0 || this.stopped) return undefined;
    return new Promise<void>((resolve) => {
      const go = () => {
        this.clock.clearTimeout(timer);
        this.spacing = undefined;
        resolve();
      };
      const timer = this.clock.setTimeout(go, wait);
      this.spacing = go;
    });
  }

  private snapshot(): ForwardCursor {
    return {
      ...(this.last !== undefined ? { lastSeq: this.last } : {}),
      retrying: this.retrying().map(({ inMs: _i, running: _r, ...r }) => r),
    };
  }

  private emit(e: ForwardEvent): void {
    this.o.onEvent?.(e);
  }
}
