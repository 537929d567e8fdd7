// A list filtered by a rare forward status (failed, pending) past the first rows it walks: the
// rows are found by seq (./sparseSeqs.ts) and the page is the one a walk of every row gives, with
// channel, before and since, hidden and dropped rows, and after the failed set gave up.
import { strict as assert } from 'node:assert';
import { CompactIndex } from '../../../../../relay/server/deliveryIndex/compactIndex';
import { SparseSeqs } from '../../../../../relay/server/deliveryIndex/sparseSeqs';
import type { StoreListQuery } from '../../../../../relay/server/base/storeTypes';

const TARGET = 'http://127.0.0.1:9/app';
const N = 20_000;

/** N deliveries on two channels, all forwarded but a few failed and pending spread through; some rejected. */
function build(): { ix: CompactIndex; failed: number[]; pending: number[] } {
  const ix = new CompactIndex();
  ix.deferPendingSet(); // as at a restart: the sets are built at the end
  const failed: number[] = [];
  const pending: number[] = [];
  for (let seq = 1; seq <= N; seq++) {
    const rejected = seq % 997 === 0;
    ix.insert(
      {
        seq,
        receivedMs: 1_700_000_000_000 + seq,
        channel: seq % 3 ? 'a' : 'b',
        verification: rejected ? 'rejected' : 'verified',
        metaLength: 0,
        targets: [TARGET],
      },
      10,
    );
    if (rejected) continue;
    const status = seq % 1_501 === 0 ? 'failed' : seq % 2_003 === 0 ? 'pending' : 'ok';
    if (status === 'failed') failed.push(seq);
    if (status === 'pending') pending.push(seq);
    if (status === 'pending') continue;
    ix.applyAttempt(
      seq,
      { target: TARGET, atMs: 1_700_000_000_000 + seq, ok: status === 'ok', durationMs: 1, status: status === 'ok' ? 200 : 503 },
      {
        target: TARGET,
        status,
        attempts: 1,
        lastStatus: status === 'ok' ? 200 : 503,
      },
    );
  }
  ix.buildPendingSet();
  return { ix, failed, pending };
}

describe('compact index: a list of a rare status past the first rows', () => {
  it('finds the failed and pending rows by seq, as a walk would, with every filter', () => {
    const { ix, failed, pending } = build();
    for (const status of ['failed', 'pending'] as const) {
      const want = status === 'failed' ? failed : pending;
      for (const q of [
        { status },
        { status, limit: 3 },
        { status, channel: 'a' },
        { status, channel: 'b' },
        { status, before: 15_000 },
        { status, before: 15_000, since: 11_000 },
        { status, since: 12_345, limit: 2 },
      ] as StoreListQuery[]) {
        const got = ix.list(q).map((s) => s.seq);
        assert.ok(got.length > 0 || q.channel === 'b', `${JSON.stringify(q)}: some rows`);
        const expected = [...want]
          .reverse()
          .filter(
            (seq) =>
              (q.channel === undefined || (seq % 3 ? 'a' : 'b') === q.channel) &&
              (q.before === undefined || seq < q.before) &&
              (q.since === undefined || seq > q.since),
          )
          .slice(0, q.limit ?? 100);
        assert.deepEqual(got, expected, JSON.stringify(q));
      }
    }
  });

  it('drops and retries are seen: a failed row forwarded later, and rows pruned, leave the page', () => {
    const { ix, failed } = build();
    const [oldest, second] = failed;
    ix.applyAttempt(second!, { target: TARGET, atMs: 1, ok: true, durationMs: 1, status: 200 }, { target: TARGET, status: 'ok', attempts: 2, lastStatus: 200 });
    ix.dropBelow(oldest! + 1);
    const got = ix.list({ status: 'failed', limit: 10_000 }).map((s) => s.seq);
    assert.deepEqual(got, failed.slice(2).reverse());
  });

  it('a failed set that gave up (too many) leaves the list to the walk', () => {
    const s = new SparseSeqs(3);
    for (const seq of [5, 1, 9]) s.add(seq);
    assert.deepEqual(s.between(0, 100), [9, 5, 1]);
    assert.deepEqual(s.between(1, 9), [5]);
    s.add(12);
    assert.equal(s.between(0, 100), undefined, 'past its cap it holds nothing to go by');
    s.reset();
    s.add(7);
    assert.deepEqual(s.between(0, 100), [7]);
  });
});
