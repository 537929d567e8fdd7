// Opening a journal of many segments (issue 24: 160 index files for a million deliveries): the
// index files are read a few segments ahead of the one being fed, so their file system round
// trips overlap the decoding; the buffers they are read into are reused. Here the first index
// file's open is held until a later one has been opened; the store then holds every delivery
// with the summaries and counts it had before.
import { strict as assert } from 'node:assert';
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { nodeFs, type JournalFs } from '../../../../../relay/server/journal/journalFs';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { tempDir } from '../../support/helpers';

const TARGET = 'http://127.0.0.1:9/hook';

async function fill(dir: string, n: number): Promise<void> {
  const store = await DeliveryStore.open(dir, { segmentBytes: 4096 });
  for (let i = 1; i <= n; i++) {
    const headers: [string, string][] = [
      ['x-service-delivery', `d-${i}-${'é'.repeat(i % 5)}`],
      ['x-service-event', i % 3 ? 'push' : 'ping'],
    ];
    const e = await store.add({ channel: i % 4 ? 'default' : 'ci', verification: 'verified', headers, targets: [TARGET] }, Buffer.alloc(200 + i, 0x61));
    if (i % 7)
      await store.recordAttempt(
        e.seq,
        { target: TARGET, at: new Date(i).toISOString(), status: 200, ok: true, durationMs: 1 },
        { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 },
      );
  }
  await store.close();
}

describe('journal open: index files read ahead', function () {
  this.timeout(30_000);

  it('opens later index files while the first is still being read, and loads every delivery as before', async () => {
    const dir = tempDir();
    await fill(dir, 120);
    const segments = readdirSync(dir)
      .filter((f) => /^journal-\d+\.idx$/.test(f))
      .sort();
    assert.ok(segments.length >= 6, `${segments.length} index files`);
    const before = await DeliveryStore.open(dir);
    const expected = { list: before.list({ limit: 1000 }), channels: before.channels(), pending: before.pending().map((e) => e.seq) };
    await before.close();

    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const opened: string[] = [];
    const fs: JournalFs = {
      ...nodeFs,
      open: async (path, mode) => {
        const name = basename(path);
        opened.push(name);
        if (name === segments[0]) await held;
        if (name === segments[2]) release(); // a later index file opened while the first waits
        return nodeFs.open(path, mode);
      },
    };
    const store = await DeliveryStore.open(dir, { fs });
    assert.deepEqual(store.list({ limit: 1000 }), expected.list);
    assert.deepEqual(store.channels(), expected.channels);
    assert.deepEqual(
      store.pending().map((e) => e.seq),
      expected.pending,
    );
    assert.equal(expected.list.length, 120);
    await store.close();
  });
});
