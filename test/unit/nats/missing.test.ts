// Where the chaos test draws the line between a delivery nats-server lost and one the relay lost
// (./missing.ts serverDefects): a wrong line either hides our losses or fails on the server's.
import { strict as assert } from 'node:assert';
import { serverDefects } from './missing';

describe("chaos report: which missing deliveries are nats-server's", function () {
  const seqOf = new Map([
    ['ours', 10],
    ['diverged', 11],
    ['reused', 12],
  ]);
  const log = 'relay: seq 11: the replica answered with another message';

  it("gone from the stream, a seq whose copies disagreed, or an acknowledged seq holding another delivery: the server's", () => {
    const held = new Map<string, string | undefined>([
      ['ours', 'ours'],
      ['reused', 'someone-else'],
    ]);
    assert.deepEqual(serverDefects(seqOf, ['ours', 'diverged', 'reused', 'gone'], log, held), ['diverged', 'reused', 'gone']);
  });

  it('in the stream at its acknowledged seq, with no disagreement logged: the relay lost it', () => {
    assert.deepEqual(serverDefects(seqOf, ['ours'], log, new Map([['ours', 'ours']])), []);
    assert.deepEqual(serverDefects(seqOf, ['ours', 'reused'], ''), [], 'without the acknowledged seqs, only the log decides');
  });
});
