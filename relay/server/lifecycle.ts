// Stopping in order: stop accepting, close subscribers, let in-flight
// requests finish (cut after a grace period), stop forwarding, flush and close the journal, and
// only then give the data folder's lock back.
import type { Server } from 'node:http';
import type { DataLock } from './dataLock';
import type { Forwarder } from './forwarding/forwarder';
import type { RelayStore } from './base/storeTypes';
import type { SubscriberHub } from './subscribers/subscribers';

export interface Stoppable {
  server: Server;
  hub: SubscriberHub;
  forwarder: Forwarder;
  store: RelayStore;
  lock: DataLock;
  /** Runs first: stop accepting deliveries, clear timers. */
  beforeStop: () => void;
}

/** Slow or stuck clients get this long after close() begins, then their connections are cut. */
const GRACE_MS = 5_000;

/** close(): idempotent; every call returns the same promise. */
export function stopper(p: Stoppable): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      p.beforeStop();
      p.hub.close();
      const closed = new Promise<void>((r) => p.server.close(() => r()));
      p.server.closeIdleConnections();
      const cut = setTimeout(() => p.server.closeAllConnections(), GRACE_MS);
      cut.unref();
      await p.forwarder.stop();
      await closed;
      clearTimeout(cut);
      await p.store.close();
      p.lock.release();
    })());
}
