// The process metrics beside the relay's own (process_*, nodejs_*): prom-client's defaults, less
// the ones Prometheus's linter refuses. prom-client 15 adds nodejs_active_handles_total,
// nodejs_active_requests_total and nodejs_active_resources_total as gauges, and a _total suffix
// is for counters (`promtool check metrics` exits 3 on them). They are only the sums of
// nodejs_active_handles{type}, nodejs_active_requests{type} and nodejs_active_resources{type},
// which stay: sum() them for the totals. prom-client has no option to rename them.
import { collectDefaultMetrics, Counter, type Registry } from 'prom-client';

/** Registers the default process metrics on `registry`, each under a name that passes `promtool check metrics`. */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const m of registry.getMetricsAsArray()) {
    if (m.name.endsWith('_total') && !(m instanceof Counter)) registry.removeSingleMetric(m.name);
  }
}
