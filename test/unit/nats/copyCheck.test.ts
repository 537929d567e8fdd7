// Which message the leader acknowledged at a seq against what the index follower handed over
// (relay/server/nats/copyCheck.ts): a follower reading a copy of the stream that differs (seen
// with nats-server 2.9 after kill -9, issue 21) must not index another delivery at the seq.
import { strict as assert } from 'node:assert';
import { CopyCheck } from '../../../relay/server/nats/copyCheck';

describe('copy check: the acknowledged message against the followed one', () => {
  it('the same message, acknowledged first or handed over first, is nothing to say', () => {
    const c = new CopyCheck<string>();
    assert.equal(c.acknowledged(1, 'id-1', 'meta 1'), true);
    assert.equal(c.handedOver(1, 'id-1'), undefined);
    assert.equal(c.handedOver(2, 'id-2'), undefined);
    assert.equal(c.acknowledged(2, 'id-2', 'meta 2'), true);
    assert.deepEqual([...c.suspect], []);
  });

  it('another message handed over after the acknowledgement: what was published is indexed instead, and the seq is suspect', () => {
    const c = new CopyCheck<string>();
    c.acknowledged(7, 'ours', 'our meta');
    assert.equal(c.handedOver(7, 'theirs'), 'our meta');
    assert.deepEqual([...c.suspect], [7]);
    assert.equal(c.handedOver(7, 'theirs'), undefined, 'said once');
  });

  it('another message handed over before the acknowledgement: the seq is suspect (its row is read from the leader)', () => {
    const c = new CopyCheck<string>();
    assert.equal(c.handedOver(9, 'theirs'), undefined);
    assert.equal(c.acknowledged(9, 'ours', 'our meta'), false);
    assert.deepEqual([...c.suspect], [9]);
  });

  it('other instances\u2019 seqs (never acknowledged here) are not judged, and what it keeps is bounded', () => {
    const c = new CopyCheck<string>();
    for (let seq = 1; seq <= 10_000; seq++) assert.equal(c.handedOver(seq, `x${seq}`), undefined);
    for (let seq = 10_001; seq <= 20_000; seq++) c.acknowledged(seq, `y${seq}`, 'never handed over');
    // The oldest acknowledgements were forgotten: a differing copy of one of them is not judged.
    assert.equal(c.handedOver(10_001, 'other'), undefined);
    assert.equal(c.handedOver(20_000, 'other'), 'never handed over');
  });
});
