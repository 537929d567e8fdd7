// The delivery engine: POSTs a payload to a webhook, records every attempt on the delivery, and
// retries failures on the service's schedule (spec §8: immediate, then 1, 5 and 30 minutes; four
// attempts in all), delays divided by the time scale (1000: one minute becomes 60 ms). Attempts run through a bounded queue with a
// per-attempt time-out, so a hanging receiver holds at most one slot for at most the time-out.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { RETRY_SCHEDULE_MS } from '../../src/core/defaults';
import { scaledWait, scheduledDelay } from '../../src/core/relay/forwardPolicy';
import { sign, DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER } from '../../src/core/signing';
import { forbiddenAddress } from '../../src/core/net/address';
import { guardedLookup, refusedTarget } from './guard';
import { isoSecond, toDeliveryRecord, type EmulatorStore } from './store';
import type { DeliveryAttempt, DeliveryRecord, EmulatedDelivery, StoredWebhook } from './types';

/** Delay before each automatic attempt (spec §8): the relay forwards on the same schedule. */
export { RETRY_SCHEDULE_MS };

export { EVENT_HEADER, DELIVERY_HEADER } from '../../src/core/signing';
export const USER_AGENT = 'service-hooks-emulator';

export interface RetryScheduled {
  delivery_id: string;
  /** Number of the automatic attempt that is scheduled (2, 3 or 4). */
  attempt: number;
  /** The schedule's delay (unscaled), e.g. 60000 before attempt 2. */
  delay_ms: number;
  /** The delay actually waited: delay_ms / timeScale. */
  scaled_delay_ms: number;
  next_attempt_at: string;
}

export interface EngineOptions {
  store: EmulatorStore;
  now: () => Date;
  timeScale: number;
  timeoutMs: number;
  concurrency: number;
  log: (line: string) => void;
  onAttempt?: (record: DeliveryRecord, attempt: DeliveryAttempt) => void;
  onRetryScheduled?: (info: RetryScheduled) => void;
}

interface PostResult {
  status: number | null;
  error?: string;
  /** The attempt was cut short by close(): it is not recorded and runs again after a restart. */
  aborted?: boolean;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

export class DeliveryEngine {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private closed = false;
  private readonly agent: Agent;

  constructor(private readonly o: EngineOptions) {
    this.agent = new Agent({ keepAliveTimeout: 4_000, connectTimeout: o.timeoutMs, connect: { lookup: guardedLookup() } });
  }

  /** Records a new delivery of `payload` to `webhook` and queues its first attempt (`done`: recorded). */
  create(webhook: StoredWebhook, event: string, payload: unknown): { delivery: EmulatedDelivery; done: Promise<void> } {
    const id = randomUUID();
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [EVENT_HEADER]: event,
      [DELIVERY_HEADER]: id,
    };
    if (webhook.secret) headers[SIGNATURE_HEADER] = sign(webhook.secret, body);
    const now = this.o.now();
    const d: EmulatedDelivery = {
      id,
      webhook_id: webhook.id,
      event,
      delivered_at: isoSecond(now),
      success: false,
      status: null,
      attempts: [],
      next_attempt_at: now.toISOString(),
      redelivery: false,
      request: { headers, body },
      auto_attempts: 0,
    };
    this.o.store.addDelivery(d);
    return { delivery: d, done: this.enqueue(d, 'auto') };
  }

  /** A manual retry: one more attempt on the same record, outside the automatic schedule. */
  retry(d: EmulatedDelivery): Promise<void> {
    d.redelivery = true;
    this.o.store.deliveryChanged();
    return this.enqueue(d, 'manual');
  }

  /** After a restart: schedules every delivery whose automatic attempt is still due. */
  resume(): void {
    const now = this.o.now().getTime();
    for (const d of this.o.store.pending()) {
      const due = Date.parse(d.next_attempt_at!);
      this.schedule(d, Number.isNaN(due) ? 0 : Math.max(0, due - now));
    }
  }

  /** Cancels the timers of deliveries that no longer exist (their webhook was deleted). */
  forget(deliveries: readonly EmulatedDelivery[]): void {
    for (const d of deliveries) this.cancel(d.id);
  }

  /** Cancels pending retries and in-flight attempts (not recorded; they resume after a restart). */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const c of this.controllers) c.abort();
    for (const w of this.waiting.splice(0)) w();
    await Promise.allSettled([...this.chains.values()]);
    await this.agent.destroy().catch(() => {});
  }

  /** Attempts on one delivery run one after another; the returned promise settles when this one is recorded. */
  private enqueue(d: EmulatedDelivery, kind: 'auto' | 'manual'): Promise<void> {
    const prev = this.chains.get(d.id) ?? Promise.resolve();
    const p = prev.then(() => this.attempt(d, kind)).catch((err: Error) => this.o.log(`delivery ${d.id}: ${err.message}`));
    this.chains.set(d.id, p);
    void p.then(() => {
      if (this.chains.get(d.id) === p) this.chains.delete(d.id);
    });
    return p;
  }

  private schedule(d: EmulatedDelivery, delayMs: number): void {
    this.cancel(d.id);
    if (this.closed) return;
    // Node timers hold at most ~24.8 days; a longer delay (a tiny time scale) waits in steps.
    const t = setTimeout(
      () => {
        this.timers.delete(d.id);
        if (delayMs > MAX_TIMER_MS) this.schedule(d, delayMs - MAX_TIMER_MS);
        else void this.enqueue(d, 'auto');
      },
      Math.min(delayMs, MAX_TIMER_MS),
    );
    this.timers.set(d.id, t);
  }

  private cancel(id: string): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }

  private async acquire(): Promise<void> {
    while (this.running >= this.o.concurrency && !this.closed) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  private async attempt(d: EmulatedDelivery, kind: 'auto' | 'manual'): Promise<void> {
    await this.acquire();
    try {
      if (this.closed) return;
      const webhook = this.o.store.webhook(d.webhook_id);
      if (!webhook || this.o.store.delivery(d.webhook_id, d.id) !== d) return; // deleted meanwhile
      if (kind === 'auto' && scheduledDelay(d.auto_attempts, RETRY_SCHEDULE_MS) === undefined) return;
      if (d.success) {
        // Already delivered (e.g. a manual retry succeeded first): nothing more is due.
        if (d.next_attempt_at !== null) {
          d.next_attempt_at = null;
          this.o.store.deliveryChanged();
        }
        return;
      }
      const startedAt = this.o.now();
      const t0 = performance.now();
      const result = await this.post(webhook.url, d);
      if (result.aborted) return;
      const attempt: DeliveryAttempt = {
        at: isoSecond(startedAt),
        success: result.status !== null && result.status >= 200 && result.status < 300,
        status: result.status,
        ...(result.error ? { error: result.error } : {}),
        duration_ms: Math.round(performance.now() - t0),
      };
      this.record(d, attempt, kind);
    } finally {
      this.release();
    }
  }

  /** Puts an attempt on the delivery and decides what comes next (nothing, or the next automatic attempt). */
  private record(d: EmulatedDelivery, attempt: DeliveryAttempt, kind: 'auto' | 'manual'): void {
    d.attempts.push(attempt);
    d.delivered_at = attempt.at;
    d.success = attempt.success;
    d.status = attempt.status;
    if (attempt.error) d.error = attempt.error;
    else delete d.error;
    if (kind === 'auto') d.auto_attempts++;
    if (attempt.success) {
      this.cancel(d.id);
      d.next_attempt_at = null;
    } else if (kind === 'auto') {
      this.scheduleNextAuto(d);
    }
    // A failed manual attempt leaves the automatic schedule as it was.
    this.o.store.deliveryChanged();
    const outcome = attempt.success ? `${attempt.status}` : `failed (${attempt.status ?? attempt.error})`;
    this.o.log(`delivery ${d.id} (${d.event}) to webhook ${d.webhook_id}: attempt ${d.attempts.length} ${outcome}`);
    this.o.onAttempt?.(toDeliveryRecord(d), { ...attempt });
  }

  /** After a failed automatic attempt: the next one after the schedule's delay / time scale, or none after the last. */
  private scheduleNextAuto(d: EmulatedDelivery): void {
    const delay = scheduledDelay(d.auto_attempts, RETRY_SCHEDULE_MS);
    if (delay === undefined) {
      d.next_attempt_at = null;
      return;
    }
    const scaled = scaledWait(delay, this.o.timeScale);
    d.next_attempt_at = new Date(this.o.now().getTime() + scaled).toISOString();
    this.schedule(d, scaled);
    this.o.onRetryScheduled?.({
      delivery_id: d.id,
      attempt: d.auto_attempts + 1,
      delay_ms: delay,
      scaled_delay_ms: scaled,
      next_attempt_at: d.next_attempt_at,
    });
  }

  private async post(url: string, d: EmulatedDelivery): Promise<PostResult> {
    const why = forbiddenAddress(new URL(url).hostname);
    if (why) return { status: null, error: describe(refusedTarget(why)) };
    const ac = new AbortController();
    this.controllers.add(ac);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, this.o.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        headers: d.request.headers,
        body: d.request.body,
        dispatcher: this.agent,
        signal: ac.signal,
      });
      // The status counts once the receiver answered; the rest of its body is not needed.
      await res.body.dump({ limit: 64 * 1024, signal: ac.signal }).catch(() => {});
      return { status: res.statusCode };
    } catch (err) {
      if (timedOut) return { status: null, error: `timed out after ${this.o.timeoutMs} ms` };
      if (this.closed) return { status: null, aborted: true };
      return { status: null, error: describe(err) };
    } finally {
      clearTimeout(timer);
      this.controllers.delete(ac);
    }
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e.code ?? e.cause?.code;
  const msg = (e.message || String(err)).slice(0, 300);
  return code && !msg.includes(code) ? `${msg} (${code})` : msg;
}
