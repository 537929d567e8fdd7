// Issue 40: the file store takes appends before its index is built (DeliveryStore.openAppending).
// The sealed segments' load is held here by a file system whose segment stat waits for the test:
// deliveries appended meanwhile are durable at once, get the seqs after the journal's last, and
// are indexed after everything the journal held, each once, in order; a later open finds the same.
import { strict as assert } from 'node:assert';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { nodeFs, type JournalFs } from '../../../../../relay/server/journal/journalFs';
import { tempDir } from '../../support/helpers';

const meta = { channel: 'default', verification: 'unverified' as const, headers: [] as [string, string][], targets: [] };

/** node:fs, but stat() after the first (the last segment's, read at once) waits until release(): the sealed segments' load. */
function heldFs(): { fs: JournalFs; release: () => void; reached: Promise<void> } {
  let release!: () => void;
  let reach!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (reach = r));
  let calls = 0;
  const fs: JournalFs = {
    ...nodeFs,
    stat: async (path: string) => {
      if (calls++ === 0) return nodeFs.stat(path);
      reach();
      await held;
      return nodeFs.stat(path);
    },
  };
  return { fs, release, reached };
}

describe('file store: appends while the index loads', () => {
  it('answers appends before the load ends; indexes them after what the journal held, each once', async () => {
    const dir = tempDir();
    const first = await DeliveryStore.open(dir, { segmentBytes: 256 });
    for (let n = 1; n <= 20; n++) await first.add(meta, Buffer.from(`{"n":${n}}`));
    await first.close();

    const held = heldFs();
    const { store, loaded } = await DeliveryStore.openAppending(dir, { segmentBytes: 256, fs: held.fs });
    await held.reached;
    assert.equal(store.lastSeq, 20, 'the last seq is known from the tail');
    const added = await Promise.all([21, 22, 23].map((n) => store.add(meta, Buffer.from(`{"n":${n}}`))));
    assert.deepEqual(
      added.map((e) => e.seq),
      [21, 22, 23],
      'durable before the index is built',
    );
    assert.equal(store.size, 0, 'nothing indexed yet');
    held.release();
    await loaded;
    const seqs = [...store.after(0)].map((e) => e.seq);
    assert.deepEqual(
      seqs,
      Array.from({ length: 23 }, (_, i) => i + 1),
    );
    assert.deepEqual(await store.read(22).then((r) => r?.body.toString()), '{"n":22}');
    await store.close();

    const again = await DeliveryStore.open(dir, { segmentBytes: 256 });
    assert.deepEqual(
      [...again.after(0)].map((e) => e.seq),
      seqs,
    );
    await again.close();
  });
});
