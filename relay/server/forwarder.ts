// Forwards journaled deliveries to their targets with the original bytes and headers (minus
// hop-by-hop), with bounded concurrency, keep-alive connections (undici Agent), every attempt
// journaled, and retries on the service's schedule (time-scalable for tests).
import { Agent, type Dispatcher } from 'undici';
import { sign, SIGNATURE_HEADER } from '../../src/core/signing';
import { connectionListed, isHopByHop, type ForwardAttempt, type ForwardState } from '../../src/core/relay/protocol';
import type { DeliveryStore } from './store';
import { RETRY_SCHEDULE_MS } from '../../src/core/defaults';

/** Delays before attempts 1..4 (spec §8): immediate, 1 min, 5 min, 30 min. */
/** The service's own schedule (spec §8), unless --retry-schedule says otherwise. */
export const DEFAULT_RETRY_SCHEDULE_MS = RETRY_SCHEDULE_MS;

export interface ForwarderOptions {
  schedule?: readonly number[];
  /** Multiplies every delay of the schedule (0.001 turns minutes into tens of ms). */
  timeScale?: number;
  concurrency?: number;
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  now?: () => number;
}

interface Job {
  seq: number;
  target: string;
  /** Present only while the job starts at once; queued jobs re-read the body from the journal. */
  body?: Buffer;
  headers?: string[];
  /** First attempt of a fresh delivery, sent while its journal write is still in flight. */
  durable?: Promise<unknown>;
}

/** The headers to send: the received ones minus hop-by-hop (content-length is recomputed). */
export function forwardHeaders(pairs: [string, string][], resignSecret?: string, body?: Uint8Array): string[] {
  const out: string[] = [];
  const listed = connectionListed(pairs);
  for (const [k, v] of pairs) {
    if (isHopByHop(k) || (listed.size > 0 && listed.has(k.toLowerCase()))) continue;
    if (resignSecret !== undefined && k.toLowerCase() === SIGNATURE_HEADER.toLowerCase()) continue;
    out.push(k, v);
  }
  if (resignSecret !== undefined) out.push(SIGNATURE_HEADER, sign(resignSecret, body ?? new Uint8Array()));
  return out;
}

const targets = new Map<string, { origin: string; path: string }>();

/** A target URL split once into the origin and path a dispatcher wants (cached per target). */
function splitTarget(target: string): { origin: string; path: string } {
  let t = targets.get(target);
  if (!t) {
    const u = new URL(target);
    t = { origin: u.origin, path: u.pathname + u.search };
    if (targets.size > 1000) targets.clear();
    targets.set(target, t);
  }
  return t;
}

/**
 * One POST; never throws: failures are values. Dispatches with a minimal handler (status code
 * kept, response bytes discarded as they arrive) rather than request(), which builds a response
 * stream per call only for it to be dumped.
 */
export function postOnce(
  dispatcher: Dispatcher,
  target: string,
  headers: string[],
  body: Uint8Array,
  timeoutMs: number,
  signal?: AbortSignal,
  now: () => number = Date.now,
): Promise<ForwardAttempt> {
  const started = now();
  const t0 = performance.now();
  const at = new Date(started).toISOString();
  const failed = (err: Error): ForwardAttempt => {
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code;
    return { target, at, ok: false, durationMs: round(performance.now() - t0), error: code ? `${code}: ${e.message}` : e.message };
  };
  let where: { origin: string; path: string };
  try {
    where = splitTarget(target);
  } catch (err) {
    return Promise.resolve(failed(err as Error));
  }
  return new Promise<ForwardAttempt>((resolve) => {
    let status = 0;
    let settled = false;
    let abort: ((err: Error) => void) | undefined;
    const onAbort = () => abort?.(signal!.reason instanceof Error ? signal!.reason : new Error('This operation was aborted'));
    const settle = (a: ForwardAttempt) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(a);
    };
    if (signal?.aborted) return settle(failed(new Error('This operation was aborted')));
    signal?.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onConnect(a) {
        abort = a;
        if (signal?.aborted) onAbort();
      },
      onHeaders(statusCode) {
        status = statusCode;
        return true;
      },
      onData() {
        return true;
      },
      onComplete() {
        const ok = status >= 200 && status < 300;
        settle({ target, at, status, ok, durationMs: round(performance.now() - t0), ...(ok ? {} : { error: `HTTP ${status}` }) });
      },
      onError(err) {
        settle(failed(err));
      },
    };
    dispatcher.dispatch(
      { origin: where.origin, path: where.path, method: 'POST', headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
      handler,
    );
  });
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export class Forwarder {
  readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly schedule: readonly number[];
  private readonly timeScale: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private running = 0;
  private readonly waiting: Job[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly inflight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly store: DeliveryStore,
    options: ForwarderOptions = {},
  ) {
    this.schedule = options.schedule?.length ? options.schedule : DEFAULT_RETRY_SCHEDULE_MS;
    this.timeScale = options.timeScale ?? 1;
    this.concurrency = Math.max(1, options.concurrency ?? 64);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: this.concurrency });
  }

  /**
   * Starts the first attempt of a fresh delivery to each target at once, in parallel with its
   * journal write; the attempt is recorded only after the delivery record is durable. (If the
   * write fails, the sender gets no 200 and sends again: at least once, never lost.)
   */
  deliver(seq: number, targets: readonly string[], body: Buffer, pairs: [string, string][], durable: Promise<unknown>): void {
    if (targets.length === 0) return;
    const headers = forwardHeaders(pairs);
    for (const target of targets) this.submit({ seq, target, body, headers, durable });
  }

  /** After a restart: schedules every pending forward where its schedule left off. */
  resume(): number {
    let n = 0;
    for (const e of this.store.pending()) {
      for (const f of e.summary.forward) {
        if (f.status !== 'pending') continue;
        const last = [...e.attempts].reverse().find((a) => a.target === f.target && !a.replay);
        const due = last ? Date.parse(last.at) + this.delay(f.attempts) : this.now();
        this.later({ seq: e.summary.seq, target: f.target }, Math.max(0, due - this.now()));
        n++;
      }
    }
    return n;
  }

  private delay(attemptsDone: number): number {
    return (this.schedule[attemptsDone] ?? 0) * this.timeScale;
  }

  private later(job: Job, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.submit(job);
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.submit(job);
    }, ms);
    this.timers.add(t);
  }

  private submit(job: Job): void {
    if (this.stopped) return;
    if (this.running >= this.concurrency) {
      // The backlog stays on disk: a queued job keeps only (seq, target) once the record is durable.
      if (job.durable) void job.durable.then(() => this.submit({ seq: job.seq, target: job.target }), () => undefined);
      else this.waiting.push({ seq: job.seq, target: job.target });
      return;
    }
    this.running++;
    const p = this.run(job).finally(() => {
      this.inflight.delete(p);
      this.running--;
      const next = this.waiting.shift();
      if (next) this.submit(next);
    });
    this.inflight.add(p);
  }

  private async run(job: Job): Promise<void> {
    let body = job.body;
    let headers = job.headers;
    if (!job.durable) {
      const e = this.store.get(job.seq);
      const state = e?.summary.forward.find((f) => f.target === job.target);
      if (!e || !state || state.status !== 'pending') return;
      if (!body || !headers) {
        const r = await this.store.read(job.seq).catch(() => undefined);
        if (!r) return;
        body = r.body;
        headers = forwardHeaders(r.meta.headers);
      }
    }
    const attempt = await postOnce(this.dispatcher, job.target, headers!, body!, this.timeoutMs, undefined, this.now);
    if (this.stopped && !attempt.ok) return; // interrupted by stop: stays pending for the next start
    if (job.durable && !(await job.durable.then(() => true, () => false))) return;
    const state = this.store.get(job.seq)?.summary.forward.find((f) => f.target === job.target);
    if (!state || state.status !== 'pending') return;
    const attempts = state.attempts + 1;
    const exhausted = attempts >= this.schedule.length;
    const next: ForwardState = {
      target: job.target,
      status: attempt.ok ? 'ok' : exhausted ? 'failed' : 'pending',
      attempts,
      ...(attempt.status !== undefined ? { lastStatus: attempt.status } : {}),
    };
    if (next.status === 'pending') next.nextAttemptAt = new Date(this.now() + this.delay(attempts)).toISOString();
    try {
      await this.store.recordAttempt(job.seq, attempt, next, { lazy: true });
    } catch {
      return; // journal closed during stop: the forward stays pending
    }
    if (next.status === 'pending') this.later({ seq: job.seq, target: job.target }, this.delay(attempts));
  }

  /** Replays a delivery now to its targets (or `to`), as-is or re-signed; records the attempts. */
  async replay(seq: number, opts: { to?: string; resignSecret?: string }): Promise<ForwardAttempt[] | undefined> {
    const r = await this.store.read(seq);
    const e = this.store.get(seq);
    if (!r || !e) return undefined;
    const headers = forwardHeaders(r.meta.headers, opts.resignSecret, r.body);
    const targets = opts.to ? [opts.to] : e.summary.forward.map((f) => f.target);
    const out: ForwardAttempt[] = [];
    for (const target of targets) {
      const attempt = { ...(await postOnce(this.dispatcher, target, headers, r.body, this.timeoutMs, undefined, this.now)), replay: true };
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
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.waiting.length = 0;
    // Cut in-flight attempts: they stay pending in the journal.
    if (this.ownsDispatcher) await this.dispatcher.destroy().catch(() => undefined);
    await Promise.allSettled([...this.inflight]);
  }
}
