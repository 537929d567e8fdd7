// Server-side forwarding as shared work across relay instances on one JetStream store: a durable
// pull consumer per (channel, target) hands each delivery to one instance at a time. The instance
// posts it, records the attempt in the store (visible from every instance), then acks (2xx, or the
// last scheduled attempt failed) or naks with the schedule's next delay. An instance that dies
// before acking loses its claim after `ack_wait`, and another instance gets the delivery again:
// at least once, never lost. "Retry pending now" (retryNow) posts the pending forwards at once from
// this instance; a forward it delivers is acked without a second post when its consumer hands it
// out again. A target that cannot be connected to is paused as the file store's forwarder and
// `service-hooks forward` pause it (../../shared/outages.ts): no attempt is recorded, the hand-outs
// this instance holds wait (their claims kept alive), no more are taken, and its port is probed
// every 200 ms; when it answers they go at once.
import { createHash } from 'node:crypto';
import { AckPolicy, DeliverPolicy, type Consumer, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { Dispatcher } from 'undici';
import { SUBSCRIBER_TARGET, type ForwardAttempt, type ForwardState } from '../../../src/core/relay/protocol';
import type { RetryFilter } from '../forwarding/forwarder';
import { forwardHeaders, postOnce } from '../../shared/attempt';
import { classify, nextRetryDelay, parseRetryAfter, scaledWait } from '../../../src/core/relay/forwardPolicy';
import type { DeliveryMeta } from '../base/storeTypes';
import { META_HEADER, type NatsStore } from './natsStore';
import { ForwardingStopped, Outages } from '../../shared/outages';
import { isApiError, JetStreamApiCodes } from './apiErrors';
import { shortPull } from './shortPull';

export interface SharedForwardingOptions {
  /** Every forward target of any channel (the relay's --forward and --config). */
  targets: readonly string[];
  schedule: readonly number[];
  /** Speed-up of the schedule (forwardPolicy.scaledWait): 1000 turns a minute into 60 ms. */
  timeScale?: number;
  timeoutMs: number;
  /** Forwards in flight at once to one target, over all instances (the consumer's max_ack_pending). */
  perTarget: number;
  dispatcher: Dispatcher;
  log?: (line: string) => void;
  /** Is anything listening at a down target's host and port? (default: a TCP connect) */
  probe?: (to: string) => Promise<boolean>;
}

/** How soon a forward whose attempt could not be recorded is handed out again. */
const RECORD_RETRY_MS = 1000;
/**
 * A claim (the consumer's ack_wait) lasts this long unless its instance says it is still working
 * (every CLAIM_MS / 3 while it posts and records): a relay that died gives its claims up within
 * 6 s rather than after the whole forward time-out plus 5 s.
 */
const CLAIM_MS = 6000;

export class SharedForwarding {
  private readonly running = new Set<ConsumerMessages>();
  private stopped = false;
  /**
   * Forwards ("seq target") being posted by this instance, by retryNow or a consumer's hand-out:
   * neither starts a second post of one of them (a hand-out that meets one is handed out again a
   * second later, and then finds it settled).
   */
  private readonly retrying = new Set<string>();
  /** Hand-outs being worked on, per target (at most perTarget). */
  private readonly inFlight = new Map<string, number>();
  private readonly slotWaiters = new Map<string, (() => void)[]>();
  private readonly outages: Outages;

  constructor(
    private readonly store: NatsStore,
    private readonly options: SharedForwardingOptions,
  ) {
    this.outages = new Outages({
      probe: options.probe,
      onDown: ({ to, error }) => options.log?.(`forward: ${to} is unreachable (${error}); its deliveries are held, and its port is probed until it answers`),
      onUp: ({ to, pausedMs }) => options.log?.(`forward: ${to} answers again after ${(pausedMs / 1000).toFixed(1)} s; sending what waited`),
    });
  }

  /** Creates (or binds to) each target's durable consumer and starts taking deliveries from it. */
  async start(): Promise<void> {
    for (const target of new Set(this.options.targets)) {
      const name = `fwd-${createHash('sha256').update(target).digest('hex').slice(0, 20)}`;
      await this.ensureConsumer(name, target);
      void this.pull(name, target);
    }
  }

  /**
   * One consumer per target over every channel; a delivery whose targets do not name it is skipped.
   * max_deliver is unlimited: the retry schedule counts the attempts recorded in the store, not the
   * consumer's hand-outs. (It was the schedule's length, and hand-outs that never reached a relay —
   * to a pull request left on a server that died, or whose claim expired while the attempt could
   * not be recorded — used those up, so the consumer stopped handing the delivery out: stranded.)
   */
  private async ensureConsumer(name: string, target: string): Promise<void> {
    const jsm = this.store.manager;
    const stream = this.store.deliveryStream;
    const config = {
      description: `service-hooks forward to ${target}`,
      ack_wait: CLAIM_MS * 1e6,
      max_deliver: -1,
      max_ack_pending: this.options.perTarget,
    };
    const exists = await jsm.consumers.info(stream, name).catch(() => undefined);
    if (!exists) {
      await jsm.consumers.add(stream, {
        ...config,
        durable_name: name,
        filter_subject: this.store.deliverySubject('>'),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
      });
    } else if (exists.config.max_deliver !== -1 || exists.config.ack_wait !== config.ack_wait) {
      // A consumer made by an earlier version (max_deliver = the schedule's length): lift the cap.
      await jsm.consumers
        .update(stream, name, config)
        .catch((err: Error) => this.options.log?.(`forward: could not update the consumer for ${target} (${err.message}); it keeps its old limits`));
    }
  }

  /**
   * Takes deliveries from the consumer in short pulls (at most the free slots, expiring after 2 s)
   * rather than one long-lived consume(): a pull request waiting on a server that died, or on a
   * consumer leader that moved, is simply gone, and the client's consume() noticed that only by
   * missed heartbeats (15 s at its defaults) and then waited out a back-off of the same length
   * while the consumer's info could not be read, so the consumer handed out nothing for 30 s or
   * more. A short pull ends on its own; a failing one is tried again after half a second.
   */
  private async pull(name: string, target: string): Promise<void> {
    let failures = 0;
    let consumer: Consumer | undefined;
    while (!this.stopped) {
      try {
        await this.freeSlot(target);
        await this.outages.reachable(target); // nothing more is taken while the target is down
        if (this.stopped) return;
        consumer ??= await this.store.client.consumers.get(this.store.deliveryStream, name);
        const free = this.options.perTarget - (this.inFlight.get(target) ?? 0);
        const { messages: batch } = await shortPull(consumer, { max_messages: free, expires: 2000 });
        this.running.add(batch);
        try {
          for await (const m of batch) this.begin(m, target);
        } finally {
          this.running.delete(batch);
        }
        if (failures > 0) this.options.log?.(`forward: taking deliveries for ${target} again`);
        failures = 0;
      } catch (err) {
        if (err instanceof ForwardingStopped) return;
        consumer = undefined;
        if (failures++ === 0) this.options.log?.(`forward: taking deliveries for ${target} failed (${(err as Error).message}); trying again`);
        if (isApiError(err, JetStreamApiCodes.ConsumerNotFound)) await this.ensureConsumer(name, target).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private freeSlot(target: string): Promise<void> {
    if ((this.inFlight.get(target) ?? 0) < this.options.perTarget) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.slotWaiters.get(target) ?? [];
      list.push(resolve);
      this.slotWaiters.set(target, list);
    });
  }

  private begin(m: JsMsg, target: string): void {
    this.inFlight.set(target, (this.inFlight.get(target) ?? 0) + 1);
    void this.handle(m, target)
      .catch((err: Error) => this.options.log?.(`forward: seq ${m.seq} to ${target}: ${err.message}`))
      .finally(() => {
        this.inFlight.set(target, (this.inFlight.get(target) ?? 1) - 1);
        for (const w of this.slotWaiters.get(target)?.splice(0) ?? []) w();
      });
  }

  private async handle(m: JsMsg, target: string): Promise<void> {
    const seq = m.seq;
    let meta: Omit<DeliveryMeta, 'seq'>;
    let body = m.data;
    try {
      meta = JSON.parse(m.headers?.get(META_HEADER) ?? '') as Omit<DeliveryMeta, 'seq'>;
    } catch {
      m.term();
      return;
    }
    // The consumer reads its own server's copy, and copies were seen to differ from the leader's
    // after servers restarted, also well after the cluster looked settled again: the app got
    // another delivery for a seq, never its own (issue 21). What is posted is the leader's copy,
    // checked by message id for every forward (one more read of the stream).
    const leader = await this.store.leaderMessage(seq).catch(() => undefined);
    if (!leader) return m.nak(RECORD_RETRY_MS);
    if (leader.id !== (m.headers?.get('Nats-Msg-Id') ?? '')) {
      this.options.log?.(`forward: the consumer's copy of seq ${seq} is another message than the stream leader's; the leader's is forwarded`);
      try {
        meta = JSON.parse(leader.metaText) as Omit<DeliveryMeta, 'seq'>;
      } catch {
        return m.nak(RECORD_RETRY_MS);
      }
      body = leader.data;
    }
    if (meta.verification === 'rejected' || !meta.targets.includes(target)) return m.ack();
    const known = this.store.forwardState(seq, target);
    if (known?.status === 'ok' || known?.status === 'failed') {
      if (known.status === 'ok')
        this.options.log?.(
          `forward: seq ${seq} to ${target} was already delivered ("retry pending now", or a hand-out whose ack was lost); acknowledged without a second post`,
        );
      return m.ack();
    }
    const due = known?.nextAttemptAt ? Date.parse(known.nextAttemptAt) - Date.now() : 0;
    if (due > 1000) return m.nak(due); // handed out again early (a lost nak): keep to the schedule
    const key = `${seq} ${target}`;
    // "Retry pending now" is posting it: under load the hand-out came before that post was recorded
    // as delivered, and the app got it twice.
    if (this.retrying.has(key)) {
      this.options.log?.(`forward: seq ${seq} to ${target} is being posted by "retry pending now"; handed out again in a second`);
      return m.nak(RECORD_RETRY_MS);
    }
    const attemptNo = (known?.attempts ?? 0) + 1; // attempts recorded, by any instance or "retry pending now"
    m.working();
    const working = setInterval(() => m.working(), CLAIM_MS / 3);
    this.retrying.add(key);
    try {
      await this.attempt(m, meta, body, target, seq, attemptNo);
    } finally {
      this.retrying.delete(key);
      clearInterval(working);
    }
  }

  private async attempt(m: JsMsg, meta: Omit<DeliveryMeta, 'seq'>, body: Uint8Array, target: string, seq: number, attemptNo: number): Promise<void> {
    let attempt: ForwardAttempt;
    for (;;) {
      try {
        await this.outages.reachable(target);
      } catch {
        return m.nak(); // stopping while the target was down: another instance (or the next start) takes it
      }
      attempt = await postOnce(this.options.dispatcher, target, forwardHeaders(meta.headers), body, { timeoutMs: this.options.timeoutMs });
      if (this.stopped && !attempt.ok) return m.nak();
      if (classify(attempt) !== 'unreachable') break;
      // Nothing there: no attempt is recorded; this hand-out waits (its claim kept) until the port answers.
      this.outages.markDown(target, attempt.error ?? 'unreachable');
    }
    // The forwarding rules (forwardPolicy): a final 4xx is not retried; Retry-After replaces one wait.
    const last = attemptNo >= this.options.schedule.length || (!attempt.ok && classify(attempt) === 'final');
    const status = attempt.ok ? 'ok' : last ? 'failed' : 'pending';
    const retryAfterMs = parseRetryAfter(attempt.retryAfter, Date.now());
    const nextDelay = Math.round(scaledWait(nextRetryDelay(attemptNo, { schedule: this.options.schedule, retryAfterMs }) ?? 0, this.options.timeScale));
    const state: ForwardState = {
      target,
      status,
      ...(attempt.status !== undefined ? { lastStatus: attempt.status } : {}),
      attempts: attemptNo,
      ...(status === 'pending' ? { nextAttemptAt: new Date(Date.now() + nextDelay).toISOString() } : {}),
    };
    try {
      await this.store.recordAttempt(seq, attempt, state); // tries for up to 7 s (a stream leader's election)
    } catch (err) {
      // Not recorded: hand it out again in a second (this instance or another), not on the
      // target's schedule; the schedule is for the target's answers only.
      this.options.log?.(`forward: seq ${seq} to ${target}: the attempt could not be recorded (${(err as Error).message}); it is tried again in a second`);
      return m.nak(RECORD_RETRY_MS);
    }
    if (status === 'pending') m.nak(nextDelay);
    else m.ack();
  }

  /** Ingress's hand-over: nothing to do, every delivery reaches the consumers through the stream. */
  deliver(): void {
    return;
  }

  /**
   * "Retry pending now": posts every pending forward (of `filter`'s channel and target) at once,
   * oldest first, at most `perTarget` at a time per target, and records each attempt. A failed one
   * stays pending on its consumer's schedule. Returns how many were started (those already being
   * retried are not counted twice).
   */
  retryNow(filter: RetryFilter = {}): number {
    if (this.stopped) return 0;
    const byTarget = new Map<string, number[]>();
    for (const e of this.store.pending()) {
      // ascending by seq (RelayStore.pending)
      if (filter.channel !== undefined && e.summary.channel !== filter.channel) continue;
      for (const f of e.summary.forward) {
        if (f.status !== 'pending' || f.target === SUBSCRIBER_TARGET || (filter.target !== undefined && f.target !== filter.target)) continue;
        const key = `${e.seq} ${f.target}`;
        if (this.retrying.has(key)) continue;
        this.retrying.add(key);
        const seqs = byTarget.get(f.target);
        if (seqs) seqs.push(e.seq);
        else byTarget.set(f.target, [e.seq]);
      }
    }
    this.outages.probeNow();
    let n = 0;
    for (const [target, seqs] of byTarget) {
      n += seqs.length;
      const next = async (): Promise<void> => {
        for (let seq = seqs.shift(); seq !== undefined && !this.stopped; seq = seqs.shift()) await this.retryOne(seq, target);
        for (const seq of seqs) this.retrying.delete(`${seq} ${target}`); // stopped first
      };
      for (let i = 0; i < Math.min(this.options.perTarget, seqs.length); i++) void next();
    }
    return n;
  }

  private async retryOne(seq: number, target: string): Promise<void> {
    try {
      const r = this.store.forwardState(seq, target)?.status === 'pending' ? await this.store.read(seq) : undefined;
      if (!r) return;
      const attempt = await postOnce(this.options.dispatcher, target, forwardHeaders(r.meta.headers), r.body, { timeoutMs: this.options.timeoutMs });
      if (classify(attempt) === 'unreachable') return this.outages.markDown(target, attempt.error ?? 'unreachable'); // no attempt spent; its consumer hands it out once the target answers
      const now = this.store.forwardState(seq, target);
      if (now?.status !== 'pending') return await this.store.recordAttempt(seq, attempt); // settled meanwhile by its consumer
      const lastStatus = attempt.status !== undefined ? { lastStatus: attempt.status } : {};
      const state: ForwardState = attempt.ok
        ? { target, status: 'ok', attempts: now.attempts + 1, ...lastStatus }
        : { ...now, attempts: now.attempts + 1, ...lastStatus };
      await this.store.recordAttempt(seq, attempt, state);
    } catch (err) {
      this.options.log?.(`forward: retry of seq ${seq} to ${target} failed (${(err as Error).message}); it stays pending`);
    } finally {
      this.retrying.delete(`${seq} ${target}`);
    }
  }

  stop(): void {
    this.stopped = true;
    this.outages.stop();
    for (const m of this.running) m.stop();
    for (const list of this.slotWaiters.values()) for (const w of list.splice(0)) w();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}
