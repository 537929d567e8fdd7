// Metrics wiring for startRelay: the registry, the store seen by ingress (counts and write
// latency), the refusal counts (told by ../access/refusalLog.ts), and where /metrics is served: on
// the relay's own port behind the admin token, or on a listener of its own (--metrics-listen,
// loopback by default) that needs no token but checks the Host header as the relay's port does
// (a web page's script must not read it through DNS rebinding).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { listen, sendError } from '../../shared/http';
import { hostAllowed } from '../access/access';
import type { RefusalReason, Refused } from '../access/refusalLog';
import type { SyncedBatch } from '../journal/journal';
import type { RelayStore } from '../base/storeTypes';
import { watchJetStream, type JetStreamHandles } from './jetstream';
import { RelayMetrics, type MetricsSources } from './relayMetrics';

export { RelayMetrics, targetLabel } from './relayMetrics';

/** Where /metrics is served: `true` (default) on the relay's port with the admin token; `{ host, port }` on its own listener; `false` off. */
export type MetricsOption = boolean | { host?: string; port: number };

export interface Metering {
  metrics: RelayMetrics;
  /** The store as ingress should use it: the same writes, counted and timed. */
  ingressStore(store: RelayStore): Pick<RelayStore, 'begin' | 'add'>;
  /** Counts a refusal (../access/refusalLog.ts tells it). */
  refused(reason: RefusalReason): void;
  /** The journal's group-commit hook. */
  synced(batch: SyncedBatch): void;
  /** Serves GET /metrics (the caller checked the token), or undefined when /metrics has its own listener. */
  route: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  /** Starts following the store (and JetStream); starts the own listener; returns its URL if any. */
  start(sources: MetricsSources, jetstream?: JetStreamHandles): Promise<string | undefined>;
  close(): Promise<void>;
}

/** What the own listener checks: the Host names the relay accepts (--allow-host), and where a refusal is told. */
export interface MetricsAccess {
  allowedHosts: readonly string[];
  refused?: Refused;
}

/** The metering of a relay, or undefined when metrics are off. Collection starts with start(). */
export function metering(option: MetricsOption | undefined, access: MetricsAccess = { allowedHosts: [] }): Metering | undefined {
  if (option === false) return undefined;
  const own = typeof option === 'object' ? option : undefined;
  let metrics: RelayMetrics | undefined;
  const stops: (() => unknown)[] = [];
  const serve = (_req: IncomingMessage, res: ServerResponse) => void answer(metrics, res);
  const m: Metering = {
    get metrics() {
      return metrics!;
    },
    ingressStore: (store) => ({
      begin(meta, body) {
        const t0 = performance.now();
        metrics?.delivery(meta, body.length);
        const r = store.begin(meta, body);
        // Observed beside the answer's own wait, not chained into it (no extra hop before the 200).
        r.durable.then(() => metrics?.durable(performance.now() - t0), noop);
        return r;
      },
      add(meta, body) {
        metrics?.delivery(meta, meta.received?.size ?? body.length);
        return store.add(meta, body);
      },
    }),
    refused: (reason) => metrics?.refusal(reason),
    synced: (batch) => metrics?.synced(batch),
    route: own ? undefined : serve,
    async start(sources, jetstream) {
      metrics = new RelayMetrics(sources);
      stops.push(metrics.follow(sources.store));
      if (jetstream) stops.push(watchJetStream(metrics, jetstream));
      if (!own) return undefined;
      const host = own.host ?? '127.0.0.1';
      const server = createServer((req, res) => {
        req.resume();
        if (!hostAllowed(req.headers.host, host, access.allowedHosts)) {
          access.refused?.(req, 'host', 'a metrics scrape');
          return sendError(res, 403, 'forbidden Host header');
        }
        if (new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') return sendError(res, 404, 'not found: this listener serves /metrics only');
        if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'use GET', undefined, { allow: 'GET' });
        serve(req, res);
      });
      const port = await listen(server, own.port, host);
      stops.push(() => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())));
      return `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`;
    },
    async close() {
      await Promise.all(stops.splice(0).map((s) => s()));
    },
  };
  return m;
}

const noop = () => undefined;

async function answer(metrics: RelayMetrics | undefined, res: ServerResponse): Promise<void> {
  if (!metrics) return sendError(res, 503, 'metrics are not collected yet');
  try {
    const text = await metrics.text();
    res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(text);
  } catch (err) {
    sendError(res, 500, `metrics: ${(err as Error).message}`);
  }
}
