import { strict as assert } from 'node:assert';
import { chunk, formatImportReport, formatProblems, validateIssueFile } from '../../../../src/core/issues';

describe('issue import validation', () => {
  it('lists every problem by index and sends nothing', () => {
    const r = validateIssueFile(JSON.stringify([{ number: 1, title: 'a', state: 'open' }, { number: 1, title: '', state: 'open' }, 'x', { number: -2, title: 't', labels: 'bug', state: 'closed' }]));
    assert.ok(!r.ok);
    assert.deepEqual(
      r.problems.map((p) => p.index),
      [1, 1, 2, 3, 3],
    );
    assert.match(formatProblems(r.problems), /record 1: `number` 1 repeats record 0/);
  });
  it('accepts valid records and fills defaults', () => {
    const r = validateIssueFile(JSON.stringify([{ number: 3, title: 'x', body: 'b', labels: ['bug'], assignees: [], state: 'open' }, { number: 4, title: 'y', state: 'closed' }]));
    assert.ok(r.ok);
    assert.deepEqual(r.records[1], { number: 4, title: 'y', body: '', labels: [], assignees: [], state: 'closed' });
  });
  it('rejects non-JSON and non-arrays', () => {
    assert.equal(validateIssueFile('{').ok, false);
    assert.equal(validateIssueFile('{}').ok, false);
  });
  it('chunks and reports without dropping anything', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    assert.throws(() => chunk([1], 0), RangeError);
    assert.equal(formatImportReport({ imported: [1, 2], failed: [{ numbers: [3, 4], reason: '500' }], notSent: [5] }), 'Imported 2 issue(s), 2 failed (#3–#4: 500), 1 not sent (cancelled).');
  });
});
