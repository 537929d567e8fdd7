// A WebSocket subscriber (`service-hooks forward`) that forwarded a delivery to its app and
// acknowledged it with the app's status: recorded as the delivery's forward state under
// SUBSCRIBER_TARGET, so listings show it forwarded instead of "no target".
import { SUBSCRIBER_TARGET } from '../../src/core/relay/protocol';
import type { RelayStore } from './storeTypes';
import type { RelayLog } from './log';

export function recordSubscriberForward(store: RelayStore, seq: number, status: number, log: RelayLog): void {
  const d = store.get(seq);
  if (!d) return;
  const prior = d.summary.forward.find((f) => f.target === SUBSCRIBER_TARGET);
  if (prior?.status === 'ok') return; // a resumed subscriber acknowledging it again adds nothing
  const attempt = { target: SUBSCRIBER_TARGET, at: new Date().toISOString(), status, ok: true, durationMs: 0 };
  const state = { target: SUBSCRIBER_TARGET, status: 'ok' as const, lastStatus: status, attempts: (prior?.attempts ?? 0) + 1 };
  store.recordAttempt(seq, attempt, state, { lazy: true }).catch((err: Error) => log(`recording delivery ${seq}'s subscriber forward failed: ${err.message}`, { level: 'error', seq, target: SUBSCRIBER_TARGET, status }));
}
