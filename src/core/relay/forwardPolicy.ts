// The forwarding rules, once, for every forwarder (the relay's --forward, `service-hooks forward`
// and the editor). Pure: no I/O, no timers, no clock of its own.
//
//   the app's answer                        outcome        what happens
//   2xx                                      delivered      acknowledged
//   4xx other than 408 and 429 (also 1xx/3xx) final         recorded, shown, acknowledged; one attempt
//   5xx, 408, 429, no answer within deadline  retry          retried on the schedule (Retry-After honoured) while later deliveries go on
//   connection refused / reset, DNS failure   unreachable    the stream pauses in order; it drains once the app's port answers
import { RETRY_SCHEDULE_MS } from '../defaults';
import type { ForwardStatus } from './protocol';

export type ForwardOutcome = 'delivered' | 'final' | 'retry' | 'unreachable';

/** What one attempt returned, as far as the rules care. */
export interface AttemptFacts {
  /** The app's HTTP status; absent when it never answered. */
  status?: number;
  /** Why there was no answer: `CODE: words` (a Node/undici error code first) or words. */
  error?: string;
}

/** Error codes that mean the app is not there at all (nothing was answered; every delivery would fail alike). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

/** Statuses the app may answer differently next time: retried on the schedule. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** The error code an attempt's error starts with (`ECONNREFUSED: connect ECONNREFUSED …`), if any. */
export function errorCode(error: string | undefined): string | undefined {
  return error === undefined ? undefined : /^([A-Z][A-Z0-9_]+):/.exec(error)?.[1];
}

/** The forward state a subscriber's acknowledgement with its app's `status` means (the relay records it so). */
export function subscriberState(status: number): ForwardStatus {
  const outcome = classify({ status });
  return outcome === 'delivered' ? 'ok' : outcome === 'retry' ? 'pending' : 'failed';
}

/** Classifies one attempt by the rules above. */
export function classify(a: AttemptFacts): ForwardOutcome {
  if (a.status !== undefined) {
    if (a.status >= 200 && a.status <= 299) return 'delivered';
    return isRetryableStatus(a.status) ? 'retry' : 'final';
  }
  const code = errorCode(a.error);
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return 'unreachable';
  return 'retry'; // a time-out, or an answer cut short: the app is there but did not answer in time
}

// A Retry-After the app sent replaces the schedule's wait (cut to MAX_RETRY_AFTER_MS).
export { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../net/retryAfter';

/**
 * The retry schedule a forwarder uses: the one given (--retry-schedule), else the service's
 * (RETRY_SCHEDULE_MS). The one place that falls back to the default.
 */
export function retrySchedule(given?: readonly number[]): readonly number[] {
  return given?.length ? given : RETRY_SCHEDULE_MS;
}

/**
 * The schedule's wait before attempt `attemptsDone + 1`, or undefined when the schedule is used up
 * (the delivery has failed). The one place that indexes a schedule: `schedule[0]` is the wait
 * before the first attempt, so after `n` failed attempts the next waits `schedule[n]`. The schedule
 * is the given one, else the service's (RETRY_SCHEDULE_MS: at once, then 1, 5 and 30 minutes after
 * the previous attempt).
 */
export function scheduledDelay(attemptsDone: number, schedule?: readonly number[]): number | undefined {
  const s = retrySchedule(schedule);
  return attemptsDone < s.length ? s[attemptsDone] : undefined;
}

/**
 * The wait before the next attempt after `attemptsDone` attempts failed with a retryable outcome,
 * or undefined when the schedule is used up (scheduledDelay); a Retry-After the app sent replaces
 * the schedule's wait for that one retry.
 */
export function nextRetryDelay(attemptsDone: number, options: { schedule?: readonly number[]; retryAfterMs?: number } = {}): number | undefined {
  const wait = scheduledDelay(attemptsDone, options.schedule);
  return wait === undefined ? undefined : (options.retryAfterMs ?? wait);
}

/**
 * A wait at a speed-up: `timeScale` is how many times faster than real time a schedule runs (1000
 * turns one minute into 60 ms; Infinity makes every wait 0; default 1). The one meaning of
 * `timeScale` everywhere: the relay's forwarder, JetStream forwarding, the emulator, --time-scale.
 */
export function scaledWait(ms: number, timeScale = 1): number {
  return ms / timeScale;
}

/** A wait in words for a person: `in 40 s`, `in 1 min`, `in 30 min`, `now`. */
export function inWords(ms: number): string {
  if (ms < 1000) return 'now';
  if (ms < 60_000) return `in ${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `in ${Math.round(ms / 60_000)} min`;
  return `in ${Math.round(ms / 3_600_000)} h`;
}
