// Targets that cannot be connected to, for every forwarder (the relay's --forward, its shared
// forwarding on JetStream, `service-hooks forward` and the editor): one rule, one home.
//
//   an attempt finds nothing listening (refused, reset, DNS)   the target's origin is marked down
//   while it is down                                          its deliveries wait, in order; its
//                                                             port is probed every `everyMs`
//                                                             (200 ms), backing off to `maxEveryMs`
//                                                             (1 s) only while it stays down
//   the probe connects                                        the outage ends: whatever waited
//                                                             goes at once
//
// Keyed by origin, not URL: two paths of one app are down and up together. No attempt is spent
// while a target is down, so an app that restarts (nodemon, --watch) never uses up a delivery's
// retry schedule, and what the service sent meanwhile reaches it within a probe of its return.
import { probePort } from './probe';

/** Timers and time, injectable (a test's fake clock). */
export interface OutageClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: OutageClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** How often a down target's port is probed at first (ms). */
export const PROBE_EVERY_MS = 200;
/** The longest wait between two probes of a target that stays down (ms). */
export const PROBE_MAX_EVERY_MS = 1000;
/** The probe's wait doubles after each this many ms of one outage (up to PROBE_MAX_EVERY_MS). */
const BACKOFF_STEP_MS = 30_000;

export class ForwardingStopped extends Error {
  override name = 'ForwardingStopped';
  constructor() {
    super('forwarding stopped');
  }
}

export interface Outage {
  /** The URL whose attempt found the target down (what is probed and shown). */
  to: string;
  since: number;
  error: string;
}

interface Held extends Outage {
  up: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
  timer?: unknown;
}

export interface OutagesOptions {
  clock?: OutageClock;
  /** Is anything listening at the URL's host and port? (default: a TCP connect) */
  probe?: (to: string) => Promise<boolean>;
  /** The first probes' spacing (default PROBE_EVERY_MS). */
  everyMs?: number;
  /** The longest spacing, reached only while a target stays down (default PROBE_MAX_EVERY_MS, at least everyMs). */
  maxEveryMs?: number;
  onDown?: (o: Outage) => void;
  onUp?: (o: Outage & { pausedMs: number }) => void;
}

/** The origin an outage is kept under (the URL itself when it cannot be parsed). */
export function originOf(to: string): string {
  try {
    return new URL(to).origin;
  } catch {
    return to;
  }
}

export class Outages {
  private readonly clock: OutageClock;
  private readonly held = new Map<string, Held>();
  private stopped = false;

  constructor(private readonly o: OutagesOptions = {}) {
    this.clock = o.clock ?? realClock;
  }

  /** Is `to`'s origin down now? */
  isDown(to: string): boolean {
    return this.held.has(originOf(to));
  }

  /** Resolves at once, or once `to`'s origin answers its probe again; rejects with ForwardingStopped on stop(). */
  reachable(to: string): Promise<void> {
    if (this.stopped) return Promise.reject(new ForwardingStopped());
    return this.held.get(originOf(to))?.up ?? Promise.resolve();
  }

  /** An attempt to `to` found nothing there: its origin is down until a probe connects (a second report joins the first). */
  markDown(to: string, error: string): void {
    const key = originOf(to);
    if (this.held.has(key) || this.stopped) return;
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    const up = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    up.catch(() => undefined);
    const h: Held = { to, since: this.clock.now(), error, up, resolve, reject };
    this.held.set(key, h);
    this.o.onDown?.({ to, since: h.since, error });
    this.probeSoon(h, this.everyMs);
  }

  /** Targets down now, and since when. */
  list(): Outage[] {
    return [...this.held.values()].map(({ to, since, error }) => ({ to, since, error }));
  }

  /** Probes every down target now (a user's "retry now"). */
  probeNow(): void {
    for (const h of this.held.values()) this.probeSoon(h, 0);
  }

  /** Ends every outage's probing; whoever waits for one gets ForwardingStopped. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const h of this.held.values()) {
      this.clock.clearTimeout(h.timer);
      h.reject(new ForwardingStopped());
    }
    this.held.clear();
  }

  private get everyMs(): number {
    return this.o.everyMs ?? PROBE_EVERY_MS;
  }

  /** The wait before the next probe: everyMs at first, doubling every BACKOFF_STEP_MS of the outage, at most maxEveryMs. */
  private nextWait(h: Held): number {
    const max = Math.max(this.everyMs, this.o.maxEveryMs ?? PROBE_MAX_EVERY_MS);
    const steps = Math.floor((this.clock.now() - h.since) / BACKOFF_STEP_MS);
    return Math.min(max, this.everyMs * 2 ** Math.min(steps, 20));
  }

  private probeSoon(h: Held, ms: number): void {
    this.clock.clearTimeout(h.timer);
    h.timer = this.clock.setTimeout(async () => {
      const up = await (this.o.probe ?? probePort)(h.to);
      if (this.stopped || this.held.get(originOf(h.to)) !== h) return;
      if (!up) return this.probeSoon(h, this.nextWait(h));
      this.held.delete(originOf(h.to));
      this.o.onUp?.({ to: h.to, since: h.since, error: h.error, pausedMs: this.clock.now() - h.since });
      h.resolve();
    }, ms);
  }
}
