// Webhook signing (src/core/signing.ts): known-answer and RFC 4231 vectors, @octokit/webhooks-methods
// as an independent verifier, verification on raw bytes with several secrets, header errors told
// apart, and a signature made with the empty key never verified.
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { sign, verify } from '../../../src/core/signing';

describe('signing', () => {
  // GitHub's published known-answer vector for the same scheme.
  const SECRET = "It's a Secret to Everybody";
  const BODY = 'Hello, World!';
  const EXPECTED = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it('matches the published known-answer vector', () => {
    assert.equal(sign(SECRET, BODY), EXPECTED);
    assert.equal(sign(SECRET, Buffer.from(BODY)), EXPECTED);
  });

  it('matches the RFC 4231 HMAC-SHA-256 test case 2', () => {
    assert.equal(sign('Jefe', 'what do ya want for nothing?'), 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('is accepted by @octokit/webhooks-methods as an independent verifier', async () => {
    // ESM-only package: loaded with a dynamic import from this CommonJS test.
    const { verify: octokitVerify } = await import('@octokit/webhooks-methods');
    const body = '{\n  "event": "push",\n  "note": "caf\\u00e9 ☕"\n}\n';
    assert.equal(await octokitVerify('s3cret', body, sign('s3cret', body)), true);
    assert.equal(await octokitVerify('other', body, sign('s3cret', body)), false);
  });

  it('verifies on the raw bytes, not on equal JSON', () => {
    const raw = Buffer.from('{"a": 1}');
    const header = sign('k', raw);
    assert.deepEqual(verify(raw, header, ['k']), { ok: true, index: 0 });
    assert.deepEqual(verify(Buffer.from('{"a":1}'), header, ['k']), { ok: false, reason: 'mismatch' });
  });

  it('supports several secrets for rotation and reports which matched', () => {
    const header = sign('new', 'body');
    assert.deepEqual(verify('body', header, ['old', 'new']), { ok: true, index: 1 });
    assert.deepEqual(verify('body', header, ['old']), { ok: false, reason: 'mismatch' });
  });

  it('tells a missing header from a malformed one', () => {
    const hex = sign('k', 'b').slice('sha256='.length);
    assert.deepEqual(verify('b', undefined, ['k']), { ok: false, reason: 'missing' });
    assert.deepEqual(verify('b', '', ['k']), { ok: false, reason: 'missing' });
    assert.deepEqual(verify('b', hex, ['k']), { ok: false, reason: 'malformed' });
    assert.deepEqual(verify('b', 'sha256=' + hex.toUpperCase(), ['k']), { ok: false, reason: 'malformed' });
    assert.deepEqual(verify('b', 'sha1=' + hex, ['k']), { ok: false, reason: 'malformed' });
    assert.deepEqual(verify('b', 'sha256=' + hex.slice(2), ['k']), { ok: false, reason: 'malformed' });
  });

  it('throws on programmer errors: no secrets, empty secret', () => {
    assert.throws(() => verify('b', 'sha256=00', []), TypeError);
    assert.throws(() => sign('', 'b'), TypeError);
  });
});

describe('signing: the empty key', () => {
  it('never verifies a signature made with an empty secret (anyone can make one)', () => {
    const body = '{"a":1}';
    const forged = 'sha256=' + createHmac('sha256', '').update(body).digest('hex');
    assert.deepEqual(verify(body, forged, ['']), { ok: false, reason: 'mismatch' });
    assert.deepEqual(verify(body, forged, [Buffer.alloc(0)]), { ok: false, reason: 'mismatch' });
    assert.deepEqual(verify(body, forged, ['', 'real-secret-0123456789']), { ok: false, reason: 'mismatch' });
    assert.deepEqual(verify(body, sign('real-secret-0123456789', body), ['', 'real-secret-0123456789']), { ok: true, index: 1 });
  });
});
