// Pins which Relay view rows a change refreshes: only the rows it touched, as the objects VS Code
// already holds (a new delivery its channel, a forward result its row, a new sentence the state
// row), and the whole view only when the top-level list changes.
import { strict as assert } from 'node:assert';
import {
  groupByChannel,
  keyOf,
  RelayRows,
  type RelayChannelView,
  type RelayDeliveryView,
  type RelayRowsInput,
  type RelayTreeNode,
} from '../../../../src/core/tree';

const channel = (name: string, received = 0): RelayChannelView =>
  ({ name, received, verified: received, unverified: 0, rejected: 0, forwarded: 0, failed: 0 }) as RelayChannelView;
const delivery = (seq: number, ch: string, forward: RelayDeliveryView['forward'] = []): RelayDeliveryView => ({
  seq,
  channel: ch,
  receivedAt: new Date(seq * 1000).toISOString(),
  verification: 'verified',
  size: 2,
  forward,
});

/** The rows as the Relay view builds them: the state row, then the channels with their deliveries. */
function view(channels: RelayChannelView[], live: RelayDeliveryView[], detail?: string): RelayRowsInput {
  const groups = groupByChannel(
    channels,
    [...live].sort((a, b) => b.seq - a.seq),
    100,
  );
  const state: RelayTreeNode = { kind: 'relayState', state: 'running', port: 8788, ...(detail ? { detail } : {}) };
  return { top: [state, ...groups.top], children: groups.children };
}

const name = (row: RelayTreeNode | undefined) => (row ? keyOf(row) : 'root');

describe('Relay view rows refreshed by what changed', () => {
  let fired: (RelayTreeNode | undefined)[];
  let rows: RelayRows;
  const live = [delivery(1, 'alice'), delivery(2, 'bob'), delivery(3, 'bob')];
  beforeEach(() => {
    fired = [];
    rows = new RelayRows((row) => fired.push(row));
    rows.update(view([channel('alice', 1), channel('bob', 2)], live));
    assert.deepEqual(fired.map(name), ['root'], 'the first rows are the whole view');
    fired = [];
  });

  it('fires nothing when nothing changed', () => {
    rows.update(view([channel('alice', 1), channel('bob', 2)], live));
    assert.deepEqual(fired, []);
  });

  it("a forward result refreshes that delivery's row only, as the object the view holds", () => {
    const bob = rows.rows.find((r) => keyOf(r) === 'channel:bob')!;
    const held = rows.childrenOf(bob).find((r) => keyOf(r) === 'delivery:2')!;
    const result: RelayDeliveryView['forward'][number] = { target: 'http://127.0.0.1:3000/hook', status: 'ok', lastStatus: 200, attempts: 1 };
    rows.update(view([channel('alice', 1), channel('bob', 2)], [delivery(1, 'alice'), delivery(2, 'bob', [result]), delivery(3, 'bob')]));
    assert.deepEqual(fired.map(name), ['delivery:2']);
    assert.equal(fired[0], held, 'the same object: VS Code finds its row by it');
    assert.deepEqual(held.kind === 'relayDelivery' && held.delivery.forward, [result], 'with the new content');
  });

  it("a new delivery refreshes its channel (its rows and counts), not the channel's rows one by one nor the view", () => {
    const bob = rows.rows.find((r) => keyOf(r) === 'channel:bob')!;
    rows.update(view([channel('alice', 1), channel('bob', 3)], [...live, delivery(4, 'bob')]));
    assert.deepEqual(fired.map(name), ['channel:bob']);
    assert.equal(fired[0], bob);
    assert.deepEqual(rows.childrenOf(bob).map(name), ['delivery:4', 'delivery:3', 'delivery:2']);
  });

  it('a new sentence refreshes the state row only', () => {
    rows.update(view([channel('alice', 1), channel('bob', 2)], live, 'the app at :3000 does not answer'));
    assert.deepEqual(fired.map(name), ['state']);
  });

  it('two rows changed: both fire, nothing else', () => {
    rows.update(view([channel('alice', 2), channel('bob', 2)], live, 'retrying'));
    assert.deepEqual(fired.map(name).sort(), ['channel:alice', 'state']);
  });

  it('a new channel, or channels in a new order, refresh the whole view', () => {
    rows.update(view([channel('alice', 1), channel('bob', 2), channel('carol')], live));
    assert.deepEqual(fired.map(name), ['root']);
    fired = [];
    rows.update(view([channel('alice', 2), channel('bob', 2), channel('carol')], [...live, delivery(5, 'alice')]));
    assert.deepEqual(fired.map(name), ['root'], 'alice has the newest delivery now: it moves up');
  });

  it('a channel that gets its first delivery becomes expandable: the whole view', () => {
    rows.update(view([channel('alice', 1), channel('bob', 2), channel('quiet')], live));
    fired = [];
    rows.update(view([channel('alice', 1), channel('bob', 2), channel('quiet', 1)], [delivery(0, 'quiet'), ...live]));
    assert.deepEqual(fired.map(name), ['root']);
  });

  it('fires nothing when VS Code reads the rows itself (quiet), and keeps them for the next change', () => {
    rows.update(view([channel('alice', 1), channel('bob', 2)], live, 'retrying'), true);
    assert.deepEqual(fired, []);
    rows.update(view([channel('alice', 1), channel('bob', 2)], live, 'retrying'));
    assert.deepEqual(fired, []);
  });
});
