import { strict as assert } from 'node:assert';
import {
  REDACTED,
  RelayLiveList,
  buildCurl,
  channelDescription,
  chunk,
  formatImportReport,
  formatProblems,
  parseRepoRef,
  relayChannelOfUrl,
  relayRow,
  relayToDelivery,
  runnerCommands,
  validateIssueFile,
  validateSecretName,
  validateWebhookUrl,
  type RelayDeliveryView,
} from '../../../src/core/tree';

const rd = (seq: number, over: Partial<RelayDeliveryView> = {}): RelayDeliveryView => ({
  seq,
  channel: 'default',
  receivedAt: '2026-11-22T20:58:10Z',
  verification: 'verified',
  event: 'push',
  deliveryId: `d${seq}`,
  size: 120,
  forward: [{ target: 'http://127.0.0.1:3000/', status: 'ok', lastStatus: 200, attempts: 1 }],
  ...over,
});

describe('copy as cURL', () => {
  it('redacts signature, authorization and secret-like headers, and URL credentials', () => {
    const curl = buildCurl(
      'https://u:p@example.com/hook?token=abc&x=1',
      { 'Content-Type': 'application/json', 'X-Service-Signature': 'sha256=deadbeef', Authorization: 'Bearer t0k', 'X-Service-Event': 'push', 'Content-Length': '2' },
      `{"a":"it's"}`,
    );
    assert.doesNotMatch(curl, /deadbeef|t0k|abc|:p@/);
    assert.match(curl, new RegExp(`X-Service-Signature: ${REDACTED}`));
    assert.match(curl, /X-Service-Event: push/);
    assert.doesNotMatch(curl, /Content-Length/);
    assert.match(curl, /--data-binary '\{"a":"it'\\''s"\}'/);
  });
});

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

describe('input validation', () => {
  it('webhook URLs', () => {
    assert.equal(validateWebhookUrl('http://127.0.0.1:8788/hooks/default'), undefined);
    assert.ok(validateWebhookUrl('ftp://x/y'));
    assert.ok(validateWebhookUrl('example.com/hook'));
    assert.ok(validateWebhookUrl(''));
  });
  it('secret names', () => {
    assert.equal(validateSecretName('DEPLOY_KEY'), undefined);
    assert.ok(validateSecretName('1ABC'));
    assert.ok(validateSecretName('has-dash'));
    assert.ok(validateSecretName('SERVICE_TOKEN'));
    assert.ok(validateSecretName(''));
  });
  it('owner/repo', () => {
    assert.deepEqual(parseRepoRef('acme/widgets.git'), { owner: 'acme', repo: 'widgets' });
    assert.equal(parseRepoRef('acme'), undefined);
    assert.equal(parseRepoRef('a/b/c'), undefined);
  });
  it('runner commands use the base URL and read the token from the environment', () => {
    const lines = runnerCommands('http://127.0.0.1:8787/', 'TOK');
    assert.equal(lines[0], `curl -fsSL 'http://127.0.0.1:8787/runner/install.sh' | sh`);
    assert.match(lines[1]!, /configure --url 'http:\/\/127\.0\.0\.1:8787' --token "\$TOK"/);
    assert.equal(lines[2], 'runner run');
  });
});

describe('relay view model', () => {
  it('live list: newest first, updates replace, resume point is the highest seq', () => {
    const live = new RelayLiveList(3);
    for (const s of [1, 2, 3]) live.upsert(rd(s));
    live.upsert(rd(2, { forward: [{ target: 't', status: 'failed', lastStatus: 502, attempts: 3 }] }));
    assert.deepEqual(live.newestFirst().map((d) => d.seq), [3, 2, 1]);
    assert.equal(live.get(2)!.forward[0]!.status, 'failed');
    live.upsert(rd(4));
    assert.deepEqual(live.newestFirst().map((d) => d.seq), [4, 3, 2]);
    assert.equal(live.lastSeq, 4);
  });
  it('rows show verification and forward status', () => {
    const row = relayRow({ kind: 'relayDelivery', delivery: rd(7) });
    assert.equal(row.label, '#7 push');
    assert.match(row.description!, /✓ verified → 200/);
    assert.equal(row.contextValue, 'relayDelivery.verified');
    const rej = relayRow({ kind: 'relayDelivery', delivery: rd(8, { verification: 'rejected', reason: 'mismatch', forward: [] }) });
    assert.match(rej.description!, /✗ rejected not forwarded/);
    assert.equal(relayRow({ kind: 'relayState', state: 'running', port: 8788 }).label, 'Running on port 8788');
    assert.match(channelDescription({ name: 'default', received: 3, verified: 2, unverified: 0, rejected: 1, forwarded: 2, failed: 0 }), /received 3 · verified 2/);
  });
  it('relay journal entries as webhook deliveries', () => {
    assert.deepEqual(relayToDelivery(rd(5)), { id: 'd5', seq: 5, event: 'push', delivered_at: '2026-11-22T20:58:10Z', success: true, status: 200 });
    const rej = relayToDelivery(rd(6, { verification: 'rejected', forward: [] }));
    assert.equal(rej.success, false);
  });
  it('maps a webhook URL to the relay channel it targets', () => {
    assert.equal(relayChannelOfUrl('http://127.0.0.1:8788/hooks/default', 8788), 'default');
    assert.equal(relayChannelOfUrl('http://localhost:8788/hooks', 8788), 'default');
    assert.equal(relayChannelOfUrl('http://127.0.0.1:8788/hooks/ci', 8788), 'ci');
    assert.equal(relayChannelOfUrl('http://127.0.0.1:9999/hooks/ci', 8788), undefined);
    assert.equal(relayChannelOfUrl('https://example.com/hooks/ci', 443), undefined);
  });
});
