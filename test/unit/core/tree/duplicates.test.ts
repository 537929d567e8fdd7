// Tree row ids must be unique within a list (VS Code rejects "Element with id … is already registered").
import { strict as assert } from 'node:assert';
import { PagedList, deliveryChildren, relayToDelivery, webhookRow, type RelayDeliveryView, type WebhookView } from '../../../../src/core/tree';

const repo = { owner: 'acme', repo: 'widgets' };
const hook: WebhookView = { id: 'h1', url: 'http://127.0.0.1:8788/hooks/default', content_type: 'json', events: ['push'], secret_set: true };
const journaled = (seq: number): RelayDeliveryView => ({
  seq,
  channel: 'default',
  receivedAt: `2026-11-23T09:00:0${seq}Z`,
  verification: 'rejected',
  reason: 'bad signature',
  event: 'push',
  deliveryId: 'd-1',
  size: 10,
  forward: [],
});

describe('unique tree ids', () => {
  it('one delivery id journaled twice by the relay gives two rows with two ids (by seq)', () => {
    const all = [journaled(2), journaled(1)].map(relayToDelivery);
    const ids = deliveryChildren(repo, hook, all, all.length, 'relay').map((n) => webhookRow(n).id);
    assert.equal(new Set(ids).size, 2, ids.join(', '));
    assert.deepEqual(
      all.map((d) => d.seq),
      [2, 1],
      'the rows keep their seq',
    );
  });

  it('offset paging of a newest-first list: an item arriving between pages is not repeated, and the end is reached', () => {
    const server = Array.from({ length: 120 }, (_, i) => ({ id: `d${120 - i}` }));
    const list = new PagedList<{ id: string }>(120, (d) => d.id);
    list.append(server.slice(0, 50), 120);
    server.unshift({ id: 'd121' });
    while (list.hasMore) list.append(server.slice(list.nextOffset, list.nextOffset + 50), server.length);
    const ids = list.items.map((d) => d.id);
    assert.deepEqual(
      ids.filter((x, i) => ids.indexOf(x) !== i),
      [],
    );
    assert.equal(ids.length, 120, 'every item loaded before the arrival is there once');
    const rows = deliveryChildren(repo, hook, [], list.total, 'service', list.hasMore);
    assert.equal(rows.length, 0, 'no "Load more" once the source is exhausted');
  });

  it('an empty page ends the list (items were deleted meanwhile)', () => {
    const list = new PagedList<{ id: string }>(10, (d) => d.id);
    list.append([{ id: 'a' }], 10);
    list.append([], 10);
    assert.equal(list.hasMore, false);
  });
});
