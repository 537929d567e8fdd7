// The types of the forward loop (./forwardEngine.ts): what its cursor keeps, the events it tells
// and its options. Apart from the loop so it stays under the size a file may have.
import type { DeliveryMessage, ForwardStatus } from '../../src/core/relay/protocol';
import type { ForwardResult } from './forward';
import type { OutageClock } from '../shared/outages';

type Delivery = DeliveryMessage['delivery'];

/** A delivery waiting for its next attempt (what the cursor keeps; no body). */
export interface RetryingDelivery {
  seq: number;
  channel: string;
  event?: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ms since the epoch). */
  nextAt: number;
  lastStatus?: number;
  lastError?: string;
}

/** What survives a restart: the last delivery handled, and those still being retried. */
export interface ForwardCursor {
  lastSeq?: number;
  retrying: RetryingDelivery[];
}

export interface CursorStore {
  load(): ForwardCursor | undefined;
  save(cursor: ForwardCursor): void | PromiseLike<void>;
}

export type EngineClock = OutageClock;

/** `to`: the target an attempt went to (absent for skips); `id`: the delivery's X-Service-Delivery, when the relay sent it. */
type About = { seq: number; channel: string; event?: string; to?: string; id?: string };
export type ForwardEvent =
  | (About & { kind: 'delivered'; status: number; durationMs: number; attempts: number })
  | (About & { kind: 'final'; status: number; durationMs: number; attempts: number })
  | (About & { kind: 'retrying'; status?: number; error?: string; attempts: number; inMs: number; durationMs?: number })
  | (About & { kind: 'failed'; status?: number; error?: string; attempts: number; durationMs?: number })
  /** `filter`: the forwarder's filter left it out (no target for its event), and the relay records it so. */
  | (About & { kind: 'skipped'; reason: string; filter?: true })
  /** The result of a replay the relay asked for (one attempt; the resume point stays). */
  | (About & { kind: 'replayed'; status?: number; error?: string; durationMs: number })
  | { kind: 'paused'; to: string; error: string }
  | { kind: 'resumed'; to: string; pausedMs: number };

export interface ForwardEngineOptions {
  /** Where a delivery of `channel` and `event` goes; undefined: not forwarded (acknowledged as skipped). */
  target: (channel: string, event?: string) => string | undefined;
  /**
   * A delivery with no target was left out by the forwarder's filter (`forward --events`,
   * `--route`): acknowledged with `skipped: 'filter'`, which the relay records (default false: a
   * plain ack, as for a channel the editor does not forward). A function: per channel (the editor
   * filters the channels of its set-ups with a filter, and acks the others plainly).
   */
  skipsByFilter?: boolean | ((channel: string) => boolean);
  /**
   * Several targets (`forward --route`): a delivery for a target that is unreachable is held for
   * it (acknowledged and kept with the retrying ones, attempted in order once it answers) instead
   * of pausing the whole stream, so one app that is down does not hold back another's deliveries.
   * Default false: the stream pauses in order, as with one target.
   */
  holdPerTarget?: boolean;
  cursor: CursorStore;
  /** The attempt (default: forwardDelivery with `timeoutMs`). */
  attempt?: (delivery: Delivery, to: string, signal: AbortSignal) => Promise<ForwardResult>;
  timeoutMs?: number;
  /** Waits before each attempt (default the service's RETRY_SCHEDULE_MS: 0, 1, 5, 30 min). */
  schedule?: readonly number[];
  clock?: EngineClock;
  /** Is the app's port open? (default: a TCP connect) */
  probe?: (to: string) => Promise<boolean>;
  /** How often a paused stream probes the app at first (default 200 ms; backing off to 1 s only while it stays down: ../shared/outages.ts). */
  probeEveryMs?: number;
  /** Deliveries retrying at once; past it the stream waits for one to settle (default 256). */
  maxRetrying?: number;
  onEvent?: (event: ForwardEvent) => void;
  /** Tells the relay a later result of a delivery acknowledged while retrying (Subscription.report). */
  report?: (seq: number, result: { status: number; state: ForwardStatus; replay?: boolean }) => void;
  /** Told when the cursor could not be saved. */
  log?: (line: string) => void;
  /**
   * The least time between the starts of two cursor writes (default 0: a write starts when the
   * one before it ends). Under a burst, `service-hooks forward` wrote its fsync'd state file
   * hundreds of times a second; spaced, a crash forwards again at most the deliveries handled in
   * the last spacing and during the write in flight. stop() does not wait for the spacing.
   */
  saveSpacingMs?: number;
}
