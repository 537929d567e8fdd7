// Metrics wiring for startRelay: the registry, the store seen by ingress (counts and write
// latency), the refusal counts read from answers, and where /metrics is served: on the relay's
// own port behind the admin token, or on a listener of its own (--metrics-listen, loopback by
// default) that needs no token.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { sendError } from '../../shared/http';
import type { SyncedBatch } from '../journal/journal';
import { listen } from '../lifecycle';
import type { RelayStore } from '../store/storeTypes';
import { watchJetStream, type JetStreamHandles } from './jetstream';
import { RelayMetrics, type MetricsSources, type RefusalReason } from './relayMetrics';

export { RelayMetrics, targetLabel, type RefusalReason } from './relayMetrics';

/** Where /metrics is served: `true` (default) on the relay's port with the admin token; `{ host, port }` on its own listener; `false` off. */
export type MetricsOption = boolean | { host?: string; port: number };

export interface Metering {
  metrics: RelayMetrics;
  /** The store as ingress should use it: the same writes, counted and timed. */
  ingressStore(store: RelayStore): Pick<RelayStore, 'begin' | 'add'>;
  /** After ingress or the API answered: counts a refusal. */
  answered(res: ServerResponse, where: 'ingress' | 'api'): void;
  /** The journal's group-commit hook. */
  synced(batch: SyncedBatch): void;
  /** Serves GET /metrics (the caller checked the token), or undefined when /metrics has its own listener. */
  route: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  /** Starts following the store (and JetStream); starts the own listener; returns its URL if any. */
  start(sources: MetricsSources, jetstream?: JetStreamHandles): Promise<string | undefined>;
  close(): Promise<void>;
}

const INGRESS_REFUSALS: Record<number, RefusalReason> = {
  400: 'bad-request',
  401: 'signature',
  403: 'allow-list',
  404: 'unknown-channel',
  413: 'too-large',
  429: 'rate-limit',
};
const API_REFUSALS: Record<number, RefusalReason> = { 401: 'token', 413: 'too-large' };

/** The metering of a relay, or undefined when metrics are off. Collection starts with start(). */
export function metering(option: MetricsOption | undefined): Metering | undefined {
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
    answered(res, where) {
      const reason = res.headersSent ? (where === 'ingress' ? INGRESS_REFUSALS : API_REFUSALS)[res.statusCode] : undefined;
      if (reason) metrics?.refusal(reason);
    },
    synced: (batch) => metrics?.synced(batch),
    route: own ? undefined : serve,
    async start(sources, jetstream) {
      metrics = new RelayMetrics(sources);
      stops.push(metrics.follow(sources.store));
      if (jetstream) stops.push(watchJetStream(metrics, jetstream));
      if (!own) return undefined;
      const server = createServer((req, res) => {
        if (new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') return sendError(res, 404, 'not found: this listener serves /metrics only');
        if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'use GET', undefined, { allow: 'GET' });
        serve(req, res);
      });
      const host = own.host ?? '127.0.0.1';
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
