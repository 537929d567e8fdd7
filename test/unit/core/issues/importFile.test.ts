// Issue import files (src/core/issues): every problem listed by record and issue number before
// anything is sent, defaults filled, chunking without loss, gh's "OPEN" normalised, and a service
// error mapped back to the file's record.
import { strict as assert } from 'node:assert';
import { chunk, chunkFailureReason, fileRecordOfServerError, formatImportReport, formatProblems, validateIssueFile } from '../../../../src/core/issues';

describe('issue import validation', () => {
  it('lists every problem, naming the 1-based record and the issue number, and sends nothing', () => {
    const r = validateIssueFile(
      JSON.stringify([
        { number: 1, title: 'a', state: 'open' },
        { number: 1, title: '', state: 'open' },
        'x',
        { number: -2, title: 't', labels: 'bug', state: 'closed' },
      ]),
    );
    assert.ok(!r.ok);
    assert.deepEqual(
      r.problems.map((p) => p.index),
      [1, 1, 2, 3, 3],
    );
    assert.match(formatProblems(r.problems), /^record 2 \(issue #1\): number 1 repeats record 1$/m);
    assert.match(formatProblems(r.problems), /^record 3: must be an object/m);
  });
  it('accepts valid records and fills defaults', () => {
    const r = validateIssueFile(
      JSON.stringify([
        { number: 3, title: 'x', body: 'b', labels: ['bug'], assignees: [], state: 'open' },
        { number: 4, title: 'y', state: 'closed' },
      ]),
    );
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
    assert.equal(
      formatImportReport({ imported: [1, 2], failed: [{ numbers: [3, 4], reason: '500' }], notSent: [5] }),
      'Imported 2 issue(s), 2 failed (#3–#4: 500), 1 not sent (cancelled).',
    );
  });
  it('the client accepts what the service accepts: a gh CLI export says "OPEN", normalised to lower case', () => {
    const r = validateIssueFile(
      JSON.stringify([
        { number: 7, title: 'From gh', body: null, state: 'OPEN', url: 'https://x/7' },
        { number: 8, title: 'Closed', state: 'Closed' },
      ]),
    );
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(
      r.records.map((x) => x.state),
      ['open', 'closed'],
    );
    const bad = validateIssueFile(JSON.stringify([{ number: 9, title: 't', state: 'merged' }]));
    assert.ok(!bad.ok);
    assert.match(formatProblems(bad.problems), /record 1 \(issue #9\): state must be "open" or "closed"/);
  });
  it("a service error's record is mapped back to the file's record", () => {
    const body = JSON.stringify({ error: 'record 2 (issue #52): title must be a non-empty string, got ""', field: '[1].title' });
    assert.equal(fileRecordOfServerError(body, 50), 52);
    assert.equal(fileRecordOfServerError('not json', 50), undefined);
    assert.equal(chunkFailureReason('POST …: 400', body, 50, [51, 52, 53]), 'record 52 (issue #52) of the file: title must be a non-empty string, got ""');
    assert.equal(chunkFailureReason('POST …: 500', '{"error":"boom"}', 0, [1]), 'POST …: 500');
  });
});
