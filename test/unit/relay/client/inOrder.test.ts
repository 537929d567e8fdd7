// The contiguous prefix a parallel subscription acknowledges and keeps (relay/client/inOrder.ts).
import { strict as assert } from 'node:assert';
import { InOrder } from '../../../../relay/client/inOrder';

describe('InOrder: what finished in any order is released in the order it started', function () {
  it('releases a finished seq only once every seq started before it finished; seqs with gaps are in start order', () => {
    const o = new InOrder<string>();
    for (const [seq, value] of [
      [3, 'a'],
      [7, 'b'],
      [8, 'c'],
      [20, 'd'],
    ] as const)
      assert.equal(o.start(seq, value), true);
    assert.equal(o.start(7, 'again'), false, 'already held');
    assert.deepEqual(o.finish(8), [], '3 and 7 are older');
    assert.deepEqual(o.finish(3), [{ seq: 3, value: 'a' }]);
    assert.deepEqual(o.finish(7), [
      { seq: 7, value: 'b' },
      { seq: 8, value: 'c' },
    ]);
    assert.equal(o.size, 1);
    assert.equal(o.has(20), true);
    assert.deepEqual(o.finish(20), [{ seq: 20, value: 'd' }]);
    assert.equal(o.size, 0);
  });

  it('a seq never started is released at once, alone', () => {
    const o = new InOrder();
    o.start(1, undefined);
    assert.deepEqual(o.finish(5), [{ seq: 5, value: undefined }]);
    assert.equal(o.has(1), true);
  });

  it('keeps releasing in order past its compaction (thousands of seqs)', () => {
    const o = new InOrder<number>();
    const released: number[] = [];
    for (let seq = 1; seq <= 5000; seq++) {
      o.start(seq, seq);
      if (seq % 2 === 0) {
        released.push(...o.finish(seq).map((r) => r.seq));
        released.push(...o.finish(seq - 1).map((r) => r.seq));
      }
    }
    assert.deepEqual(
      released,
      Array.from({ length: 5000 }, (_, i) => i + 1),
    );
    assert.equal(o.size, 0);
  });
});
