// Server-side forwarding as shared work across relay instances on one JetStream store: a durable
// pull consumer per (channel, target) hands each delivery to one instance at a time. The instance
// posts it, records the attempt in the store (visible from every instance), then acks (2xx, or the
// last scheduled attempt failed) or naks with the schedule's next delay. An instance that dies
// before acking loses its claim after `ack_wait`, and another instance gets the delivery again:
// at least once, never lost. "Retry pending now" (retryNow) posts the pending forwards at once from
// this instance; a forward it delivers is acked without a second post when its consumer hands it
// out again.
import { createHash } from 'node:crypto';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from 'nats';
import type { Dispatcher } from 'undici';
import { SUBSCRIBER_TARGET, type ForwardAttempt, type ForwardState } from '../../../src/core/relay/protocol';
import type { RetryFilter } from '../forwarder';
import { forwardHeaders, postOnce } from '../../client/attempt';
import { classify, parseRetryAfter } from '../../../src/core/relay/forwardPolicy';
import type { DeliveryMeta } from '../storeTypes';
import { META_HEADER, type NatsStore } from './natsStore';

export interface SharedForwardingOptions {
  /** Every forward target of any channel (the relay's --forward and --config). */
  targets: readonly string[];
  schedule: readonly number[];
  /** Divides every delay of the schedule (1000 turns a minute into 60 ms). */
  timeScale?: number;
  timeoutMs: number;
  /** Forwards in flight at once to one target, over all instances (the consumer's max_ack_pending). */
  perTarget: number;
  dispatcher: Dispatcher;
  log?: (line: string) => void;
}

export class SharedForwarding {
  private readonly running: ConsumerMessages[] = [];
  private stopped = false;
  /** Forwards ("seq target") that retryNow is attempting, so a second request does not double them. */
  private readonly retrying = new Set<string>();

  constructor(
    private readonly store: NatsStore,
    private readonly options: SharedForwardingOptions,
  ) {}

  /** Creates (or binds to) each target's durable consumer and starts taking deliveries from it. */
  async start(): Promise<void> {
    for (const target of new Set(this.options.targets)) await this.startTarget(target);
  }

  /** One consumer per target over every channel; a delivery whose targets do not name it is skipped. */
  private async startTarget(target: string): Promise<void> {
    const name = `fwd-${createHash('sha256').update(target).digest('hex').slice(0, 20)}`;
    const jsm = this.store.manager;
    const stream = this.store.deliveryStream;
    const exists = await jsm.consumers.info(stream, name).catch(() => undefined);
    if (!exists) {
      await jsm.consumers.add(stream, {
        durable_name: name,
        description: `service-hooks forward to ${target}`,
        filter_subject: this.store.deliverySubject('>'),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.New,
        ack_wait: (this.options.timeoutMs + 5000) * 1e6,
        max_deliver: this.options.schedule.length,
        max_ack_pending: this.options.perTarget,
      });
    }
    const consumer = await this.store.client.consumers.get(stream, name);
    const messages = await consumer.consume({ max_messages: this.options.perTarget });
    this.running.push(messages);
    void (async () => {
      for await (const m of messages) void this.handle(m, target);
    })();
  }

  private async handle(m: JsMsg, target: string): Promise<void> {
    const seq = m.seq;
    let meta: Omit<DeliveryMeta, 'seq'>;
    try {
      meta = JSON.parse(m.headers?.get(META_HEADER) ?? '') as Omit<DeliveryMeta, 'seq'>;
    } catch {
      m.term();
      return;
    }
    if (meta.verification === 'rejected' || !meta.targets.includes(target)) return m.ack();
    const known = this.store.forwardState(seq, target);
    if (known?.status === 'ok') {
      this.options.log?.(`forward: seq ${seq} to ${target} was already delivered ("retry pending now", or a hand-out whose ack was lost); acknowledged without a second post`);
      return m.ack();
    }
    const attemptNo = m.info.redeliveryCount; // 1 for the first delivery
    m.working();
    const attempt: ForwardAttempt = await postOnce(this.options.dispatcher, target, forwardHeaders(meta.headers), m.data, { timeoutMs: this.options.timeoutMs });
    // The forwarding rules (forwardPolicy): a final 4xx is not retried; Retry-After replaces one wait.
    const last = attemptNo >= this.options.schedule.length || (!attempt.ok && classify(attempt) === 'final');
    const status = attempt.ok ? 'ok' : last ? 'failed' : 'pending';
    const retryAfterMs = parseRetryAfter(attempt.retryAfter, Date.now());
    const nextDelay = retryAfterMs !== undefined ? Math.round(retryAfterMs / (this.options.timeScale ?? 1)) : this.delay(attemptNo);
    const state: ForwardState = {
      target,
      status,
      ...(attempt.status !== undefined ? { lastStatus: attempt.status } : {}),
      // Attempts made by "retry pending now" count too (the consumer's count does not know them).
      attempts: Math.max(attemptNo, (known?.attempts ?? 0) + 1),
      ...(status === 'pending' ? { nextAttemptAt: new Date(Date.now() + nextDelay).toISOString() } : {}),
    };
    try {
      await this.store.recordAttempt(seq, attempt, state);
    } catch (err) {
      // Not recorded: leave the claim to expire so the delivery is attempted again (at least once).
      this.options.log?.(`forward: seq ${seq} to ${target}: the attempt could not be recorded (${(err as Error).message}); it will be retried`);
      return;
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
    for (const e of this.store.pending()) { // ascending by seq (RelayStore.pending)
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
      const now = this.store.forwardState(seq, target);
      if (now?.status !== 'pending') return await this.store.recordAttempt(seq, attempt); // settled meanwhile by its consumer
      const lastStatus = attempt.status !== undefined ? { lastStatus: attempt.status } : {};
      const state: ForwardState = attempt.ok ? { target, status: 'ok', attempts: now.attempts + 1, ...lastStatus } : { ...now, attempts: now.attempts + 1, ...lastStatus };
      await this.store.recordAttempt(seq, attempt, state);
    } catch (err) {
      this.options.log?.(`forward: retry of seq ${seq} to ${target} failed (${(err as Error).message}); it stays pending`);
    } finally {
      this.retrying.delete(`${seq} ${target}`);
    }
  }

  /** The wait after attempt `n` (1-based) before attempt n + 1. */
  private delay(n: number): number {
    return Math.round((this.options.schedule[n] ?? 0) / (this.options.timeScale ?? 1));
  }

  stop(): void {
    this.stopped = true;
    for (const m of this.running) m.stop();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}
