// The pending set after a restart: built once from the loaded rows (not kept record by record
// while the journal loads), it holds exactly the deliveries still pending to a target, as the
// running store had them: not the forwarded, failed, rejected or pruned ones.
import { strict as assert } from 'node:assert';
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CompactIndex } from '../../../../../relay/server/deliveryIndex/compactIndex';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import type { ForwardAttempt } from '../../../../../src/core/relay/protocol';
import { tempDir } from '../../support/helpers';

const TARGET = 'http://127.0.0.1:9/hook';
const attempt = (ok: boolean): ForwardAttempt => ({ target: TARGET, at: new Date(0).toISOString(), status: ok ? 200 : 500, ok, durationMs: 1 });

describe('the pending set at a restart', () => {
  it('holds the same deliveries after a reopen (index files and a scan) as the running store did', async () => {
    const dir = tempDir();
    const store = await DeliveryStore.open(dir, { segmentBytes: 2000 });
    for (let i = 1; i <= 60; i++) {
      const verification = i % 13 === 0 ? ('rejected' as const) : ('verified' as const);
      const e = await store.add(
        { channel: i % 2 ? 'a' : 'b', verification, headers: [['X-Service-Delivery', `d-${i}`]], targets: verification === 'rejected' ? [] : [TARGET] },
        Buffer.from(`body ${i}`),
      );
      if (i % 3 === 0) await store.recordAttempt(e.seq, attempt(true), { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 });
      else if (i % 5 === 0) await store.recordAttempt(e.seq, attempt(false), { target: TARGET, status: 'failed', attempts: 1, lastStatus: 500 });
      else if (i % 7 === 0)
        await store.recordAttempt(e.seq, attempt(false), {
          target: TARGET,
          status: 'pending',
          attempts: 1,
          lastStatus: 500,
          nextAttemptAt: new Date(60_000).toISOString(),
        });
    }
    await store.prune({ keep: 45 });
    const expected = store.pending().map((e) => e.seq);
    assert.ok(expected.length > 10 && expected[0]! > 10, `pending after the prune: ${expected.join(',')}`);
    await store.close();
    let want = expected;
    for (const how of ['index files', 'scan']) {
      if (how === 'scan') for (const n of readdirSync(dir).filter((x) => x.endsWith('.idx'))) unlinkSync(join(dir, n));
      const again = await DeliveryStore.open(dir, { segmentBytes: 2000 });
      assert.deepEqual(
        again.pending().map((e) => e.seq),
        want,
        how,
      );
      assert.equal(
        again.channels().reduce((n, c) => n + (c.pending ?? 0), 0),
        want.length,
        how,
      );
      // Kept record by record again after the load: a forward of one takes it out (for the next reopen too).
      await again.recordAttempt(want[0]!, attempt(true), { target: TARGET, status: 'ok', attempts: 2, lastStatus: 200 });
      want = want.slice(1);
      assert.deepEqual(
        again.pending().map((e) => e.seq),
        want,
        how,
      );
      await again.release();
    }
  });

  it('CompactIndex: a deferred pending set is built from the rows, skipping hidden ones', () => {
    const ix = new CompactIndex();
    ix.deferPendingSet();
    const loc = { segment: 1, offset: 0, length: 10 };
    for (let seq = 1; seq <= 4; seq++) ix.insert({ seq, receivedMs: 0, channel: 'a', verification: 'verified', metaLength: 2, targets: [TARGET] }, 8, loc);
    ix.applyAttempt(2, { target: TARGET, atMs: 0, ok: true, durationMs: 1, status: 200 }, { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 });
    assert.deepEqual(
      ix.pending().map((r) => r.seq),
      [],
      'not kept while deferred',
    );
    ix.buildPendingSet();
    assert.deepEqual(
      ix.pending().map((r) => r.seq),
      [1, 3, 4],
    );
  });
});
