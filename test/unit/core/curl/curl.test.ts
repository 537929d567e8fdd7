// Copy as cURL keeps a body's exact bytes, also when they are not valid UTF-8.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { REDACTED, buildCurl, printfBytes, redactHeaders, utf8OrUndefined } from '../../../../src/core/curl';

describe('Copy as cURL body bytes', () => {
  const latin1 = Buffer.from('{"name":"caf\xe9","pct":"100%","bs":"a\\\\b","q":"it\'s"}', 'latin1');

  it('a body that is not UTF-8 is not decoded', () => {
    assert.equal(utf8OrUndefined(latin1), undefined);
    assert.equal(utf8OrUndefined(Buffer.from('{"name":"café"}', 'utf8')), '{"name":"café"}');
  });

  it('the printf that feeds curl writes exactly the original bytes', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (const bytes of [latin1, all]) {
      const out = execFileSync('sh', ['-c', printfBytes(bytes)]);
      assert.ok(out.equals(bytes), `${out.toString('hex')} != ${bytes.toString('hex')}`);
    }
  });

  it('buildCurl pipes non-UTF-8 bytes to --data-binary @- and quotes UTF-8 text as before', () => {
    const curl = buildCurl('http://127.0.0.1:1/hooks/default', { 'content-type': 'application/json' }, latin1);
    assert.match(curl, /^printf '.*' \| curl -X POST 'http:\/\/127\.0\.0\.1:1\/hooks\/default'/);
    assert.match(curl, /--data-binary @-$/);
    assert.ok(!curl.includes('\ufffd'), 'no replacement character');
    const text = buildCurl('http://127.0.0.1:1/', {}, Buffer.from('{"a":"é"}'));
    assert.ok(text.startsWith('curl -X POST'));
    assert.ok(text.endsWith(`--data-binary '{"a":"é"}'`));
  });
});

describe('copy as cURL', () => {
  it('redacts signature, authorization and secret-like headers, and URL credentials', () => {
    const curl = buildCurl(
      'https://u:p@example.com/hook?token=abc&x=1',
      {
        'Content-Type': 'application/json',
        'X-Service-Signature': 'sha256=deadbeef',
        Authorization: 'Bearer t0k',
        'X-Service-Event': 'push',
        'Content-Length': '2',
      },
      `{"a":"it's"}`,
    );
    assert.doesNotMatch(curl, /deadbeef|t0k|abc|:p@/);
    assert.match(curl, new RegExp(`X-Service-Signature: ${REDACTED}`));
    assert.match(curl, /X-Service-Event: push/);
    assert.doesNotMatch(curl, /Content-Length/);
    assert.match(curl, /--data-binary '\{"a":"it'\\''s"\}'/);
  });
});

describe('Copy as cURL: bodies that are not printable', () => {
  it('a UTF-8 body with control characters (ESC, CR, NUL, C1) goes through printf, so nothing reaches the terminal raw', () => {
    for (const body of ['{"a":"\u001b[2J"}', 'line\r\nnext', 'a\u0000b', 'x\u0085y']) {
      const curl = buildCurl('http://127.0.0.1:3000/hook', {}, body);
      assert.match(curl, /^printf '/, JSON.stringify(body));
      assert.match(curl, /--data-binary @-$/);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(curl, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'no control character in the command');
    }
    assert.match(buildCurl('http://h/', {}, '{\n\t"a": "café"\n}'), /--data-binary '\{\n\t"a": "café"\n\}'$/, 'tabs and newlines stay quoted text');
  });
  it('a header with control characters (ESC, C1 CSI) is written by printf: nothing reaches the terminal raw, the bytes are kept (issue 36 item 3)', () => {
    const headers = { 'x-service-event': 'push\u001b]0;owned\u0007', 'x-evil': 'a\u009b2Jb', 'x-fine': 'café' };
    const curl = buildCurl('http://127.0.0.1:3000/hook', headers, '{}');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(curl, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no control character in the command');
    assert.ok(curl.includes(`-H 'x-fine: café'`), 'a header without one is quoted as before');
    const printfs = [...curl.matchAll(/-H "\$\((printf '[^']*')\)"/g)].map((m) => m[1]!);
    assert.equal(printfs.length, 2, curl);
    assert.deepEqual(
      printfs.map((p) => execFileSync('sh', ['-c', p]).toString('latin1')),
      ['x-service-event: push\u001b]0;owned\u0007', 'x-evil: a\u009b2Jb'],
      'each writes the header as received',
    );
  });
  it('redactHeaders hides signatures, authorization and secret-looking headers', () => {
    const h = redactHeaders({ 'X-Service-Signature': 's', Authorization: 'Bearer t', 'X-Api-Key': 'k', 'X-Service-Event': 'push', Cookie: 'c' });
    assert.deepEqual(h, { 'X-Service-Signature': REDACTED, Authorization: REDACTED, 'X-Api-Key': REDACTED, 'X-Service-Event': 'push', Cookie: REDACTED });
  });
});
