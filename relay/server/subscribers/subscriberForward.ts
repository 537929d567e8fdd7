// A WebSocket subscriber (`service-hooks forward`, the editor) that forwarded a delivery to its app
// and acknowledged it with the app's status, or reported a later result of a delivery it retries:
// recorded as the delivery's forward state under SUBSCRIBER_TARGET, so listings show it forwarded
// (or refused, or retrying) instead of "no target". The state follows the forwarding rules
// (src/core/relay/forwardPolicy) unless the subscriber says (it gave up, or the user skipped it).
import { subscriberState } from '../../../src/core/relay/forwardPolicy';
import { SUBSCRIBER_TARGET, type ForwardState, type ForwardStatus } from '../../../src/core/relay/protocol';
import type { RelayStore } from '../base/storeTypes';
import type { RelayLog } from '../base/log';

export function recordSubscriberForward(store: RelayStore, seq: number, status: number, log: RelayLog, said?: ForwardStatus, replay = false): void {
  const d = store.get(seq);
  if (!d) return;
  const prior = d.summary.forward.find((f) => f.target === SUBSCRIBER_TARGET);
  if (replay) return recordReplay(store, seq, status, prior, log);
  if (prior?.status === 'ok') return; // a resumed subscriber acknowledging it again adds nothing
  const state = said ?? subscriberState(status);
  const attempt = { target: SUBSCRIBER_TARGET, at: new Date().toISOString(), status, ok: state === 'ok', durationMs: 0 };
  const next = { target: SUBSCRIBER_TARGET, status: state, lastStatus: status, attempts: (prior?.attempts ?? 0) + 1 };
  store
    .recordAttempt(seq, attempt, next, { lazy: true })
    .catch((err: Error) =>
      log(`recording delivery ${seq}'s subscriber forward failed: ${err.message}`, { level: 'error', seq, target: SUBSCRIBER_TARGET, status }),
    );
}

/** A subscriber's result of a replay (ReplayDeliveryMessage): a replay attempt; a 2xx makes the state ok, anything else leaves it (as the relay's own replays do). */
function recordReplay(store: RelayStore, seq: number, status: number, prior: ForwardState | undefined, log: RelayLog): void {
  const ok = subscriberState(status) === 'ok';
  const attempt = { target: SUBSCRIBER_TARGET, at: new Date().toISOString(), status, ok, durationMs: 0, replay: true };
  const next: ForwardState | undefined = ok ? { target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: status, attempts: (prior?.attempts ?? 0) + 1 } : undefined;
  store
    .recordAttempt(seq, attempt, next, { lazy: true })
    .catch((err: Error) =>
      log(`recording delivery ${seq}'s subscriber replay failed: ${err.message}`, { level: 'error', seq, target: SUBSCRIBER_TARGET, status }),
    );
}

/**
 * A subscriber's filter left delivery `seq` out (AckMessage.skipped): recorded as skipped under
 * SUBSCRIBER_TARGET, neither delivered nor failed, unless a subscriber already forwarded it (a
 * second forwarder with another filter: its result stands).
 */
export function recordSubscriberSkip(store: RelayStore, seq: number, log: RelayLog): void {
  const d = store.get(seq);
  if (!d || d.summary.forward.some((f) => f.target === SUBSCRIBER_TARGET)) return;
  const attempt = { target: SUBSCRIBER_TARGET, at: new Date().toISOString(), ok: false, durationMs: 0, error: SKIPPED_BY_FILTER };
  store
    .recordAttempt(seq, attempt, { target: SUBSCRIBER_TARGET, status: 'skipped', attempts: 0 }, { lazy: true })
    .catch((err: Error) => log(`recording delivery ${seq}'s filter skip failed: ${err.message}`, { level: 'error', seq, target: SUBSCRIBER_TARGET }));
}

/** The error an attempt of a skipped delivery records (and `deliveries` shows). */
export const SKIPPED_BY_FILTER = 'skipped by the filter';
