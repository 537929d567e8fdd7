// Benchmark: first paint of a webhook holding 10,000 deliveries in the Webhooks view.
// Measures the path getChildren takes (JSON page from the deliveries endpoint → nodes → rows)
// for the paged tree (first page + "Load more…") against rendering every delivery at once.
// With SERVICE_HOOKS_BENCH_BASE_URL + _TOKEN + _WEBHOOK set, it also times the real endpoint.
// A benchmark, not a test: it prints figures measured in this run.
import { performance } from 'node:perf_hooks';
import { DEFAULT_PAGE_SIZE, PagedList, deliveryChildren, webhookRow, type DeliveryView, type WebhookView } from '../src/core/tree';

const N = 10_000;
const repo = { owner: 'acme', repo: 'widgets' };
const hook: WebhookView = { id: 'wh_bench', url: 'http://127.0.0.1:8788/hooks/default', content_type: 'json', events: ['push'], secret_set: true };

const records: DeliveryView[] = Array.from({ length: N }, (_, i) => ({
  id: `0190f3c2-${i.toString(16).padStart(8, '0')}`,
  webhook_id: hook.id,
  event: i % 3 ? 'push' : 'pull_request',
  delivered_at: new Date(Date.UTC(2026, 10, 22) - i * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
  success: i % 7 !== 0,
  status: i % 7 !== 0 ? 200 : 500,
  attempts: [{ at: '2026-11-22T00:00:00Z', success: true, status: 200, duration_ms: 3 }],
  redelivery: false,
}));

function paint(count: number): number {
  // what the endpoint would send for `limit=count`, parsed as the client does
  const body = JSON.stringify({ total: N, successful: 0, failed: 0, deliveries: records.slice(0, count) });
  const t0 = performance.now();
  const page = JSON.parse(body) as { total: number; deliveries: DeliveryView[] };
  const list = new PagedList<DeliveryView>(page.total);
  list.append(page.deliveries, page.total);
  const rows = deliveryChildren(repo, hook, list.items, list.total, 'service').map(webhookRow);
  if (rows.length === 0) throw new Error('no rows');
  return performance.now() - t0;
}

function median(f: () => number, runs = 21): number {
  for (let i = 0; i < 3; i++) f(); // warm-up
  const xs = Array.from({ length: runs }, f).sort((a, b) => a - b);
  return xs[Math.floor(runs / 2)]!;
}

async function endpoint(): Promise<void> {
  const base = process.env.SERVICE_HOOKS_BENCH_BASE_URL;
  const token = process.env.SERVICE_HOOKS_BENCH_TOKEN;
  const webhook = process.env.SERVICE_HOOKS_BENCH_WEBHOOK;
  if (!base || !token || !webhook) {
    console.log('endpoint: set SERVICE_HOOKS_BENCH_BASE_URL/_TOKEN/_WEBHOOK to time the real deliveries endpoint');
    return;
  }
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/webhooks/${webhook}/deliveries?limit=${DEFAULT_PAGE_SIZE}&offset=0`, { headers: { authorization: `Bearer ${token}` } });
  const page = (await res.json()) as { total: number; deliveries: DeliveryView[] };
  deliveryChildren(repo, hook, page.deliveries, page.total, 'service').map(webhookRow);
  console.log(`endpoint: first page of ${page.total} deliveries fetched and painted in ${(performance.now() - t0).toFixed(1)} ms`);
}

const paged = median(() => paint(DEFAULT_PAGE_SIZE));
const all = median(() => paint(N));
console.log(`tree first paint, ${N} deliveries:`);
console.log(`  paged (first ${DEFAULT_PAGE_SIZE} + "Load more…"): ${paged.toFixed(3)} ms (median of 21)`);
console.log(`  everything at once:                 ${all.toFixed(3)} ms (median of 21)`);
console.log(`  ratio: paging is ${(all / paged).toFixed(0)}× faster`);
void endpoint();
