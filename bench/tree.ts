// Benchmark: first paint of a webhook holding 10,000 deliveries in the Webhooks view.
// The path the tree takes when the user expands "Deliveries N · ✓ N · ✗ N": the service client asks
// the deliveries endpoint of a real emulator (loaded from a state file with 10,000 deliveries) for
// a page, then the view model turns the page into rows. Paged (first page + "Load more…", what the
// extension does) against fetching every delivery (pages of 100, the emulator's cap) before painting.
// With SERVICE_HOOKS_BENCH_BASE_URL + _TOKEN + _WEBHOOK set, it times that service instead.
// A benchmark, not a test: it prints figures measured in this run and writes bench/results/tree.json.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ServiceClient } from '../src/core/client';
import { DEFAULT_PAGE_SIZE, deliveryChildren, PagedList, webhookRow, type DeliveryView, type WebhookView } from '../src/core/tree';
import { startEmulator } from '../relay/emulator';
import type { StateFile, EmulatedDelivery } from '../relay/emulator/types';

const N = 10_000;
const RUNS = 21;
let totalSeen = 0;
const TOKEN = 'bench-token';
const repo = { owner: 'acme', repo: 'widgets' };

function stateWith(n: number): StateFile {
  const created = '2026-11-22T00:00:00Z';
  const deliveries: EmulatedDelivery[] = Array.from({ length: n }, (_, i) => {
    const ok = i % 7 !== 0;
    const at = new Date(Date.UTC(2026, 10, 22) + i * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    return {
      id: `0190f3c2-0000-7000-8000-${i.toString(16).padStart(12, '0')}`,
      webhook_id: '1',
      event: i % 3 ? 'push' : 'pull_request',
      delivered_at: at,
      success: ok,
      status: ok ? 200 : 500,
      attempts: [{ at, success: ok, status: ok ? 200 : 500, duration_ms: 3 }],
      next_attempt_at: null,
      redelivery: false,
      request: { headers: { 'content-type': 'application/json' }, body: '{"event":"push"}' },
      auto_attempts: 4,
    };
  });
  return {
    version: 1,
    next_webhook_id: 2,
    repos: { 'acme/widgets': { issues: [], secrets: [] } },
    webhooks: [{ id: '1', repo: 'acme/widgets', url: 'http://127.0.0.1:9/hook', content_type: 'json', events: ['push', 'pull_request'], created_at: created }],
    deliveries: { '1': deliveries },
  };
}

/** Time until the rows of the first screen exist: fetch pages of `limit` (every page when `all`), then paint. */
async function firstPaint(client: ServiceClient, hook: WebhookView, limit: number, all = false): Promise<number> {
  const t0 = performance.now();
  let list: PagedList<DeliveryView> | undefined;
  do {
    const page = await client.listDeliveries(hook.id, { limit, offset: list?.items.length ?? 0 });
    if (!page.offered) throw new Error(`the deliveries endpoint is not offered: ${page.reason}`);
    if (page.deliveries.length === 0) break;
    list ??= new PagedList(page.total);
    list.append(page.deliveries, page.total);
  } while (all && list.items.length < list.total);
  if (!list) throw new Error('no deliveries');
  if (all && list.items.length !== list.total) throw new Error(`fetched ${list.items.length} of ${list.total}`);
  totalSeen = list.total;
  const rows = deliveryChildren(repo, hook, list.items, list.total, 'service').map(webhookRow);
  if (rows.length < list.items.length) throw new Error(`painted ${rows.length} rows for ${list.items.length} deliveries`);
  return performance.now() - t0;
}

async function median(f: () => Promise<number>): Promise<number> {
  for (let i = 0; i < 3; i++) await f(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await f());
  return xs.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

async function main(): Promise<void> {
  const external = process.env.SERVICE_HOOKS_BENCH_BASE_URL;
  const dir = mkdtempSync(join(tmpdir(), 'sh-bench-tree-'));
  let close = async () => {};
  let baseUrl: string;
  let token: string;
  let hookId: string;
  if (external) {
    baseUrl = external;
    token = process.env.SERVICE_HOOKS_BENCH_TOKEN ?? '';
    hookId = process.env.SERVICE_HOOKS_BENCH_WEBHOOK ?? '';
  } else {
    const state = join(dir, 'state.json');
    writeFileSync(state, JSON.stringify(stateWith(N)), { mode: 0o600 });
    const emu = await startEmulator({ port: 0, host: '127.0.0.1', token: TOKEN, state, maxDeliveriesPerWebhook: N, log: () => {} });
    close = () => emu.close();
    baseUrl = emu.url;
    token = TOKEN;
    hookId = '1';
  }
  try {
    const client = new ServiceClient({ baseUrl, token });
    const hook = (await client.listWebhooks(repo)).find((h) => h.id === hookId);
    if (!hook) throw new Error(`webhook ${hookId} not found in acme/widgets`);
    const paged = await median(() => firstPaint(client, hook, DEFAULT_PAGE_SIZE));
    const all = await median(() => firstPaint(client, hook, 100, true));
    const result = {
      deliveries: totalSeen,
      service: external ? baseUrl : 'emulator (in process)',
      pageSize: DEFAULT_PAGE_SIZE,
      pagedMs: +paged.toFixed(2),
      allAtOnceMs: +all.toFixed(2),
      ratio: +(all / paged).toFixed(1),
      targetMs: 200,
    };
    console.log(`tree first paint, ${result.deliveries} deliveries (${result.service}; request + parse + rows, median of ${RUNS}):`);
    console.log(`  paged (first ${DEFAULT_PAGE_SIZE} + "Load more…"):     ${result.pagedMs} ms   target < 200 ms: ${paged < 200 ? 'met' : 'NOT met'}`);
    console.log(`  every delivery first (pages of 100): ${result.allAtOnceMs} ms`);
    console.log(`  ratio: paging is ${result.ratio}× faster`);
    const out = resolve(__dirname, 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'tree.json'), JSON.stringify(result, null, 2) + '\n');
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:tree failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
