// Lazy journal appends (forward-attempt bookkeeping): no fdatasync of their own, yet on disk —
// on the next eager append's sync, by the lazy timer, or at close — and attempt records survive
// a restart of the relay.
import { strict as assert } from 'node:assert';
import { Journal } from '../../../../../relay/server/journal/journal';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { startRelay } from '../../../../../relay/server';
import { post, settled, signed, startTarget, tempDir } from '../../support/helpers';

async function records(dir: string): Promise<string[]> {
  const out: string[] = [];
  const j = await Journal.open(dir, { onRecord: (_type, payload) => out.push(payload.toString()) });
  await j.close();
  return out;
}

describe('relay journal: lazy appends', () => {
  it('lazy records start no sync: they ride on the next eager append', async () => {
    const dir = tempDir();
    const j = await Journal.open(dir, { lazyMs: 3_600_000 });
    const lazy = Array.from({ length: 10 }, (_, i) => j.append(2, [Buffer.from(`attempt ${i}`)], { lazy: true }));
    // Let a sync start if a lazy append had asked for one (it would take the ten on its own).
    for (let i = 0; i < 2; i++) await new Promise<void>((r) => setImmediate(r));
    const eager = await j.append(1, [Buffer.from('delivery')]);
    const locs = await Promise.all(lazy);
    assert.equal(j.syncs, 1, 'one fdatasync for the eager record and the ten lazy ones before it');
    assert.ok(
      locs.every((l) => l.offset < eager.offset),
      'in append order',
    );
    await j.close();
    assert.deepEqual(await records(dir), [...Array.from({ length: 10 }, (_, i) => `attempt ${i}`), 'delivery']);
  });

  it('a lazy record alone gets its own sync after lazyMs', async () => {
    const dir = tempDir();
    const j = await Journal.open(dir, { lazyMs: 1 });
    await j.append(2, [Buffer.from('alone')], { lazy: true });
    assert.equal(j.syncs, 1);
    // On disk before close: a second reader sees it.
    assert.deepEqual(await records(dir), ['alone']);
    await j.close();
  });

  it('close() writes out lazy records still waiting for a sync', async () => {
    const dir = tempDir();
    const j = await Journal.open(dir, { lazyMs: 3_600_000 });
    const pending = j.append(2, [Buffer.from('late bookkeeping')], { lazy: true });
    await j.close();
    await pending;
    assert.deepEqual(await records(dir), ['late bookkeeping']);
  });

  it('forward attempts are in the journal after the relay stops and starts again', async () => {
    const target = await startTarget();
    const dataDir = tempDir();
    try {
      let relay = await startRelay({ port: 0, dataDir, secrets: ['s'], forward: [target.url] });
      const seqs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const body = JSON.stringify({ i });
        seqs.push(((await post(`${relay.url}/hooks/default`, body, signed('s', body))).json as { seq: number }).seq);
      }
      for (const seq of seqs) await settled(relay.store, seq);
      await relay.close();
      const store = await DeliveryStore.open(dataDir);
      for (const seq of seqs) {
        const e = store.get(seq)!;
        assert.equal(e.attempts.length, 1, `seq ${seq}`);
        assert.equal(e.attempts[0]!.status, 200);
        assert.equal(e.summary.forward[0]!.status, 'ok');
      }
      await store.close();
      // And a relay started on the same data sends nothing again.
      relay = await startRelay({ port: 0, dataDir, secrets: ['s'], forward: [target.url] });
      assert.equal(relay.store.pending().length, 0);
      await relay.close();
      assert.equal(target.received.length, 5);
    } finally {
      await target.close();
    }
  });
});
