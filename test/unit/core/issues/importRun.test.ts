// Import with the service going away: the run stops at the first chunk it cannot send, a second
// run resumes from there, and an import of the same records again counts what it replaced.
// Real HTTP: the emulator on 127.0.0.1, closed mid-import and started again on the same port.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient, ServiceError, type IssueRecord } from '../../../../src/core/client';
import { formatImportReport, replacedCount, runImport } from '../../../../src/core/issues';
import { startEmulator, type EmulatorServer } from '../../../../relay/emulator';

const TOKEN = 'import-run-token-5d2e';
const repo = { owner: 'acme', repo: 'imports' };
const records: IssueRecord[] = Array.from({ length: 7 }, (_, i) => ({
  number: i + 1,
  title: `Issue ${i + 1}`,
  body: '',
  labels: [],
  assignees: [],
  state: 'open',
}));
const unreachable = (err: unknown) => (err instanceof ServiceError && (err.kind === 'network' || err.kind === 'timeout') ? (err.code ?? err.kind) : undefined);

describe('issue import run (service unreachable mid-way, resume, replaced count)', function () {
  this.timeout(30_000);
  let dir: string;
  let emulator: EmulatorServer | undefined;
  const start = async (port = 0) => (emulator = await startEmulator({ port, host: '127.0.0.1', token: TOKEN, state: join(dir, 'state.json') }));
  const client = (url: string) => new ServiceClient({ baseUrl: `${url}/`, token: TOKEN, sleep: async () => undefined });
  const stored = async (url: string) =>
    ((await (await fetch(`${url}/_emulator/repos/acme/imports/issues`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as IssueRecord[]).map(
      (i) => i.number,
    );

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sh-import-run-'))));
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops at the first unreachable chunk, sends no later chunk, and a resumed run imports the rest', async () => {
    const first = await start();
    const url = first.url.replace(/\/+$/, '');
    const port = Number(new URL(url).port);
    const c = client(url);
    let sends = 0;
    const report = await runImport(records, {
      chunkSize: 3,
      send: (part) => (sends++, c.importIssues(repo, part)),
      unreachable,
      cancelled: () => false,
      onChunk: async (r) => {
        if (r.imported.length === 3) await first.close(); // the service goes down after the first chunk
      },
    });
    assert.deepEqual(report.imported, [1, 2, 3]);
    assert.equal(sends, 2, 'the chunk after the unreachable one is not sent');
    assert.deepEqual(report.stopped, { at: 3, number: 4, reason: 'ECONNREFUSED' });
    assert.deepEqual(report.notSent, [4, 5, 6, 7]);
    assert.deepEqual(report.failed, [], 'no per-chunk list of connection errors');
    assert.match(
      formatImportReport(report),
      /^Imported 3 issue\(s\)\. Stopped at issue #4 \(record 4\): cannot reach the service \(ECONNREFUSED\); 4 not sent\. Retry resumes from there\.$/,
    );

    await start(port); // back, with the state it saved
    const resumed = await runImport(records, {
      chunkSize: 3,
      from: report.stopped!.at,
      send: (part) => c.importIssues(repo, part),
      unreachable,
      cancelled: () => false,
    });
    assert.deepEqual(resumed.imported, [4, 5, 6, 7]);
    assert.equal(resumed.replaced, 0);
    assert.equal(resumed.stopped, undefined);
    assert.match(formatImportReport(resumed), /^Imported 4 issue\(s\) from record 4 on\.$/);
    assert.deepEqual(await stored(url), [1, 2, 3, 4, 5, 6, 7]);

    const again = await runImport(records.slice(2), { chunkSize: 3, send: (part) => c.importIssues(repo, part), unreachable, cancelled: () => false });
    assert.equal(again.replaced, 5, 'issues 3–7 existed and were replaced');
    assert.match(formatImportReport(again), /^Imported 5 issue\(s\), 5 of them already existed and were replaced\.$/);
  });

  it('a refused chunk (400) is listed and the run goes on; an answer without `replaced` leaves the count out', async () => {
    const bad = { ...records[1]!, title: '' };
    const report = await runImport([records[0]!, bad, records[2]!], {
      chunkSize: 1,
      send: async (part) => {
        if (part[0] === bad)
          throw new ServiceError({
            kind: 'http',
            method: 'POST',
            path: '/x',
            status: 400,
            detail: 'HTTP 400',
            bodyExcerpt: '{"error":"title must be a non-empty string","field":"[0].title"}',
          });
        return { imported: 1 };
      },
      unreachable,
      cancelled: () => false,
    });
    assert.deepEqual(report.imported, [1, 3]);
    assert.equal(report.failed.length, 1);
    assert.match(report.failed[0]!.reason, /^record 2 \(issue #2\) of the file: title must be/);
    assert.equal(report.replaced, undefined);
    assert.equal(replacedCount({ replaced: -1 }), undefined);
    assert.doesNotMatch(formatImportReport(report), /replaced/);
  });
});
