// The Relay view groups rows by channel: the admin token sees every channel's deliveries, and one
// flat list mixed another developer's rows with mine.
import { strict as assert } from 'node:assert';
import { groupByChannel, relayRow, type RelayChannelView, type RelayDeliveryView } from '../../../../src/core/tree';

const channel = (name: string): RelayChannelView =>
  ({ name, received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0 }) as RelayChannelView;
const delivery = (seq: number, ch: string): RelayDeliveryView => ({
  seq,
  channel: ch,
  receivedAt: new Date(seq * 1000).toISOString(),
  verification: 'verified',
  size: 2,
  forward: [],
});

describe('Relay view rows grouped by channel', () => {
  const live = [delivery(5, 'bob'), delivery(4, 'alice'), delivery(3, 'bob'), delivery(2, 'gone'), delivery(1, 'alice')];

  it('each channel holds its own deliveries, newest first; the channel with the newest delivery comes first', () => {
    const g = groupByChannel([channel('alice'), channel('bob'), channel('quiet')], live, 100);
    assert.deepEqual(
      g.top.map((n) => (n.kind === 'relayChannel' ? `${n.channel.name}${n.grouped ? '+' : ''}` : n.kind === 'relayDelivery' ? `#${n.delivery.seq}` : n.kind)),
      ['bob+', 'alice+', 'quiet', '#2'],
    );
    assert.deepEqual(
      g.children.get('alice')!.map((n) => (n.kind === 'relayDelivery' ? n.delivery.seq : n.kind)),
      [4, 1],
    );
    assert.deepEqual(
      g.children.get('bob')!.map((n) => (n.kind === 'relayDelivery' ? n.delivery.seq : n.kind)),
      [5, 3],
    );
    assert.equal(g.children.has('quiet'), false);
    assert.equal(relayRow(g.top[0]!).collapsible, 'expanded');
    assert.equal(relayRow(g.top[2]!).collapsible, 'none', 'a channel without rows has nothing to expand');
  });

  it('pages each channel on its own, with an "… older" row whose id names the channel', () => {
    const g = groupByChannel([channel('alice'), channel('bob')], live, 1);
    const bob = g.children.get('bob')!;
    assert.equal(bob.length, 2);
    assert.deepEqual(bob[1], { kind: 'relayMore', shown: 1, total: 2, channel: 'bob' });
    assert.notEqual(relayRow(bob[1]!).id, relayRow(g.children.get('alice')![1]!).id);
  });
});
