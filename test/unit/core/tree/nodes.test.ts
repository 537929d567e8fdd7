// The webhooks tree model (src/core/tree): repository → webhook → deliveries rows with counts,
// context values per outcome, pages with "Load more…", unique row ids, and message rows that act.
import { strict as assert } from 'node:assert';
import {
  ROW_COMMANDS,
  DEFAULT_PAGE_SIZE,
  PagedList,
  countDeliveries,
  deliveryChildren,
  webhookRow,
  type DeliveryView,
  type RepoRef,
  type WebhookView,
} from '../../../../src/core/tree';

const repo: RepoRef = { owner: 'acme', repo: 'widgets' };
const hook: WebhookView = { id: 'wh_1', url: 'http://127.0.0.1:8788/hooks/default', content_type: 'json', events: ['push'], secret_set: true };

function deliveries(n: number): DeliveryView[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    event: 'push',
    delivered_at: new Date(Date.UTC(2026, 10, 22, 20, 0, 0) - i * 1000).toISOString(),
    success: i % 4 !== 0,
    status: i % 4 !== 0 ? 200 : 500,
  }));
}

describe('webhooks tree model', () => {
  it('repository → webhook → deliveries row with counts', () => {
    const repoRow = webhookRow({ kind: 'repository', repo });
    assert.equal(repoRow.label, 'acme/widgets');
    assert.equal(repoRow.contextValue, 'repository');
    const hookRow = webhookRow({ kind: 'webhook', repo, webhook: hook });
    assert.equal(hookRow.label, '127.0.0.1:8788/hooks/default');
    assert.equal(hookRow.description, 'push');
    assert.equal(hookRow.contextValue, 'webhook');
    assert.equal(hookRow.collapsible, 'collapsed');
    const list = deliveries(8);
    const row = webhookRow({ kind: 'deliveries', repo, webhook: hook, counts: countDeliveries(list), source: 'service' });
    assert.equal(row.label, 'Deliveries 8 · ✓ 6 · ✗ 2');
    assert.match(row.tooltip!, /deliveries endpoint/);
  });

  it('an empty deliveries row does not expand', () => {
    assert.equal(webhookRow({ kind: 'deliveries', repo, webhook: hook, counts: { total: 0, successful: 0, failed: 0 }, source: 'relay' }).collapsible, 'none');
  });

  it('failed and successful delivery rows carry distinct context values and open on click', () => {
    const [ok, failed] = [deliveries(2)[1]!, deliveries(1)[0]!];
    const okRow = webhookRow({ kind: 'delivery', repo, webhook: hook, delivery: ok, source: 'service' });
    const badRow = webhookRow({ kind: 'delivery', repo, webhook: hook, delivery: failed, source: 'service' });
    assert.equal(okRow.contextValue, 'delivery.ok');
    assert.equal(badRow.contextValue, 'delivery.failed');
    assert.match(badRow.label, /✗ 500$/);
    assert.equal(okRow.command?.command, 'serviceHooks.openDelivery');
    assert.notEqual(okRow.id, badRow.id);
  });

  it('pages: 10,000 deliveries show the first page plus "Load more…"', () => {
    const all = deliveries(10_000);
    const list = new PagedList<DeliveryView>();
    list.append(all.slice(0, DEFAULT_PAGE_SIZE), all.length);
    const children = deliveryChildren(repo, hook, list.items, list.total, 'service');
    assert.equal(children.length, DEFAULT_PAGE_SIZE + 1);
    const more = children[children.length - 1]!;
    assert.equal(more.kind, 'loadMore');
    assert.equal(webhookRow(more).label, `Load more… (50 of 10000 shown)`);
    assert.equal(webhookRow(more).command?.command, 'serviceHooks.loadMore');
    list.append(all.slice(list.nextOffset, list.nextOffset + DEFAULT_PAGE_SIZE), all.length);
    assert.equal(deliveryChildren(repo, hook, list.items, list.total, 'service').length, 2 * DEFAULT_PAGE_SIZE + 1);
  });

  it('no "Load more…" once everything is loaded', () => {
    const all = deliveries(30);
    const list = new PagedList<DeliveryView>();
    list.append(all, all.length);
    assert.equal(list.hasMore, false);
    assert.ok(deliveryChildren(repo, hook, list.items, list.total, 'relay').every((n) => n.kind === 'delivery'));
  });

  it('PagedList keeps total at least the loaded count', () => {
    const list = new PagedList<number>(5);
    list.append([1, 2, 3, 4, 5, 6], 5);
    assert.equal(list.total, 6);
    assert.equal(list.hasMore, false);
  });

  it('row ids are unique across a large tree', () => {
    const rows = deliveryChildren(repo, hook, deliveries(500), 1000, 'service').map((n) => webhookRow(n).id);
    assert.equal(new Set(rows).size, rows.length);
  });

  it('message rows', () => {
    const row = webhookRow({ kind: 'message', id: 'x', text: 'Cannot reach the service', severity: 'error' });
    assert.equal(row.contextValue, 'message');
    assert.equal(row.icon?.id, 'error');
  });
});

describe('message rows that act', () => {
  it('a problem row runs its action on click and names the problem in its contextValue', () => {
    const row = webhookRow({
      kind: 'message',
      id: 'err:a/b',
      text: 'Cannot reach the service at http://127.0.0.1:9 (connection refused). Retry',
      severity: 'error',
      problem: 'network',
      action: { command: ROW_COMMANDS.refresh, title: 'Retry' },
    });
    assert.equal(row.contextValue, 'message.network');
    assert.deepEqual(row.command, { command: 'serviceHooks.refresh', title: 'Retry' });
    assert.match(row.tooltip!, /Click: Retry/);
    const plain = webhookRow({ kind: 'message', id: 'n', text: 'note', severity: 'info' });
    assert.equal(plain.contextValue, 'message');
    assert.equal(plain.command, undefined);
  });
});
