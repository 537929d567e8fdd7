// The Webhooks view's live refresh: one timer that runs `tick` every interval while the view is
// visible, waits longer after failures (doubling up to a cap), and stops while hidden or turned off.
// Timers are injected so tests step through time without sleeping.

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** What one tick did: `ok: false` when a read failed (the next tick waits longer). */
export interface TickResult {
  ok: boolean;
}

export const MAX_REFRESH_BACKOFF_MS = 5 * 60_000;

/** The delay before the next tick: the interval, doubled per consecutive failure, at most `max` (never below the interval). */
export function nextDelay(intervalMs: number, failures: number, max = MAX_REFRESH_BACKOFF_MS): number {
  if (failures <= 0) return intervalMs;
  return Math.max(intervalMs, Math.min(max, intervalMs * 2 ** Math.min(failures, 30)));
}

export class RefreshLoop {
  private handle: unknown;
  private visible = false;
  private intervalMs: number;
  private failures = 0;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly tick: () => Promise<TickResult>,
    intervalSeconds: number,
    private readonly timers: Timers = realTimers,
    /** The longest wait after failures (0: never longer than the interval). */
    private readonly maxBackoffMs = MAX_REFRESH_BACKOFF_MS,
  ) {
    this.intervalMs = Math.max(0, intervalSeconds * 1000);
  }

  /** Consecutive failed ticks (0 after a good one). */
  get failureCount(): number {
    return this.failures;
  }

  /** Whether a tick is scheduled (visible, turned on, not disposed). */
  get scheduled(): boolean {
    return this.handle !== undefined;
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    this.reschedule();
  }

  /** New interval in seconds (0 turns the loop off). */
  setInterval(seconds: number): void {
    this.intervalMs = Math.max(0, seconds * 1000);
    this.reschedule();
  }

  /** Runs a tick now (a relay event, a test) and schedules the next one after it. Ticks never overlap. */
  runNow(): Promise<void> {
    this.cancel();
    this.running ??= (async () => {
      try {
        const r = await this.tick();
        this.failures = r.ok ? 0 : this.failures + 1;
      } catch {
        this.failures++;
      } finally {
        this.running = undefined;
        this.reschedule();
      }
    })();
    return this.running;
  }

  /** Resolves when no tick is running. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  dispose(): void {
    this.disposed = true;
    this.cancel();
  }

  private reschedule(): void {
    this.cancel();
    if (this.disposed || !this.visible || this.intervalMs === 0 || this.running) return;
    this.handle = this.timers.setTimeout(
      () => {
        this.handle = undefined;
        void this.runNow();
      },
      nextDelay(this.intervalMs, this.failures, this.maxBackoffMs),
    );
  }

  private cancel(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
