// The JetStream store's metrics: the NATS connection's state (followed through its status
// events) and each forward target's durable consumer: messages not yet delivered (num_pending) and
// delivered but not yet acknowledged (num_ack_pending), read from JetStream at scrape time.
import { Gauge } from 'prom-client';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RelayMetrics } from './relayMetrics';

/** What the shared forwarding's consumers are described as (relay/server/nats/sharedForwarding.ts). */
const FORWARD_DESCRIPTION = /^service-hooks forward to (.+)$/;

export interface JetStreamHandles {
  connection: NatsConnection;
  manager: JetStreamManager;
  deliveryStream: string;
}

/** Starts following the connection and registers the consumer gauges; returns the stopper. */
export function watchJetStream(metrics: RelayMetrics, js: JetStreamHandles): () => void {
  let stopped = false;
  let connected = !js.connection.isClosed();
  const set = (up: boolean) => metrics.connected((connected = up));
  set(connected);
  void (async () => {
    for await (const s of js.connection.status()) {
      if (stopped) return;
      if (s.type === 'disconnect') set(false);
      else if (s.type === 'reconnect') set(true);
    }
  })().catch(() => undefined);
  void js.connection.closed().then(() => set(false));
  const gauges: Gauge<'target'>[] = [];
  // One listing serves both gauges (prom-client collects them one after the other).
  let listing: Promise<void> | undefined;
  const read = () =>
    (listing ??= (async () => {
      const [pending, ackPending] = gauges as [Gauge<'target'>, Gauge<'target'>];
      pending.reset();
      ackPending.reset();
      // Disconnected, the listing would wait for its request time-out (5 s) in every scrape, and a
      // scrape time-out under that would make a relay that is up look down: no series instead
      // (unknown), while relay_jetstream_connected and relay_store_ready say why.
      if (!connected) return;
      for await (const c of await js.manager.consumers.list(js.deliveryStream)) {
        const m = FORWARD_DESCRIPTION.exec(c.config.description ?? '');
        if (!m) continue;
        const target = metrics.targets.of(m[1]!);
        pending.set({ target }, c.num_pending);
        ackPending.set({ target }, c.num_ack_pending);
      }
    })()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (listing = undefined))));
  const registers = [metrics.registry];
  gauges.push(
    new Gauge({
      name: 'relay_jetstream_consumer_pending',
      help: "Deliveries on a forward target's durable consumer not yet handed to any relay instance",
      labelNames: ['target'],
      registers,
      collect: read,
    }),
    new Gauge({
      name: 'relay_jetstream_consumer_ack_pending',
      help: "Deliveries handed out by a forward target's durable consumer and not yet acknowledged",
      labelNames: ['target'],
      registers,
      collect: read,
    }),
  );
  return () => {
    stopped = true;
  };
}
