// Regression test: seq numbers stay monotonic after a prune removed every delivery and the relay restarted.
import { strict as assert } from 'node:assert';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { tempDir } from '../../support/helpers';

describe('relay seq numbering', () => {
  it('never reuses a seq after a prune that deleted every segment, across restarts', async () => {
    const dir = tempDir();
    const meta = { channel: 'default', verification: 'unverified' as const, headers: [] as [string, string][], targets: [] };
    let store = await DeliveryStore.open(dir, { segmentBytes: 1 });
    await store.add(meta, Buffer.from('{"n":1}'));
    await store.add(meta, Buffer.from('{"n":2}'));
    assert.deepEqual(await store.prune({ keep: 0 }), { removed: 2, remaining: 0 });
    await store.close();
    store = await DeliveryStore.open(dir, { segmentBytes: 1 });
    assert.equal(store.lastSeq, 2);
    assert.equal((await store.add(meta, Buffer.from('{"n":3}'))).summary.seq, 3);
    await store.close();
    store = await DeliveryStore.open(dir, { segmentBytes: 1 });
    assert.equal(store.lastSeq, 3);
    assert.deepEqual(
      [...store.after(0)].map((e) => e.summary.seq),
      [3],
    );
    await store.close();
  });
});
