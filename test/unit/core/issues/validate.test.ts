// The shared rules for bulk-import records: the emulator answers the first problem, the editor lists them all.
import { strict as assert } from 'node:assert';
import { describeIssueProblem, validateIssueRecords } from '../../../../src/core/issues/validate';

describe('issue record rules (src/core/issues/validate)', () => {
  it('normalises an export: state in any case to lower case, body null or missing to "", missing arrays to []', () => {
    const r = validateIssueRecords([
      { number: 2, title: 'a', state: 'OPEN', body: null, url: 'ignored' },
      { number: 1, title: 'b', state: 'closed', body: 'x', labels: ['bug'], assignees: [{ login: 'd' }] },
    ]);
    assert.deepEqual(r, {
      ok: true,
      records: [
        { number: 2, title: 'a', body: '', labels: [], assignees: [], state: 'open' },
        { number: 1, title: 'b', body: 'x', labels: ['bug'], assignees: [{ login: 'd' }], state: 'closed' },
      ],
    });
  });

  it('lists every problem with the 1-based record, the issue number when usable, and the JSON path', () => {
    const r = validateIssueRecords([
      { number: 3, title: 't', state: 'open' },
      'x',
      { number: 3, title: '', state: 'merged' },
      { number: -1, title: 't', labels: 'bug', state: 'open' },
    ]);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.deepEqual(
      r.problems.map((p) => [p.record, p.number, p.field, describeIssueProblem(p)]),
      [
        [2, undefined, '[1]', 'record 2: must be an object with number, title and state, got "x"'],
        [3, 3, '[2].number', 'record 3 (issue #3): number 3 repeats record 1'],
        [3, 3, '[2].title', 'record 3 (issue #3): title must be a non-empty string, got ""'],
        [3, 3, '[2].state', 'record 3 (issue #3): state must be "open" or "closed" (any case), got "merged"'],
        [4, undefined, '[3].number', 'record 4: number must be a positive integer, got -1'],
        [4, undefined, '[3].labels', 'record 4: labels must be an array, got "bug"'],
      ],
    );
    assert.deepEqual(
      r.problems.map((p) => p.index),
      [1, 2, 2, 2, 3, 3],
    );
  });

  it('firstOnly stops at the first record with a problem', () => {
    const r = validateIssueRecords([{ number: 1, title: 't', state: 'x' }, { number: 'y' }], { firstOnly: true });
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.deepEqual(
        r.problems.map((p) => p.field),
        ['[0].state'],
      );
  });
});
