// Network failures are recognised by their error code (on the error or its cause), not by message text.
import { strict as assert } from 'node:assert';
import { ServiceClient, networkErrorCode, networkErrorText } from '../../../../src/core/client';
import { freePort } from '../../../support/freePort';

describe('network error classification', () => {
  it("fetch to a closed port: the code is on the error's cause", async () => {
    const err = await fetch(`http://127.0.0.1:${await freePort()}/`).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof Error);
    assert.equal(networkErrorCode(err), 'ECONNREFUSED');
  });

  it('codes on the error itself and nested causes; nothing from message text', () => {
    assert.equal(networkErrorCode(Object.assign(new Error('x'), { code: 'ENOTFOUND' })), 'ENOTFOUND');
    assert.equal(networkErrorCode(new Error('a', { cause: new Error('b', { cause: Object.assign(new Error('c'), { code: 'ECONNRESET' }) }) })), 'ECONNRESET');
    assert.equal(networkErrorCode(new Error('connect ECONNREFUSED 127.0.0.1:9 (fetch failed, socket hang up)')), undefined);
    assert.equal(networkErrorCode(Object.assign(new Error('x'), { code: 'ENOENT' })), undefined);
    assert.equal(networkErrorCode(undefined), undefined);
  });
});

describe('ServiceError of a network failure', () => {
  it('carries the code, and networkErrorText says it in words', async () => {
    const client = new ServiceClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, token: 't', retries: 0 });
    const err = await client.listWebhooks({ owner: 'a', repo: 'b' }).then(
      () => undefined,
      (e: unknown) => e as { kind: string; code?: string },
    );
    assert.equal(err?.kind, 'network');
    assert.equal(err?.code, 'ECONNREFUSED');
    assert.equal(networkErrorText(err?.code), 'connection refused');
    assert.equal(networkErrorText('EWHATEVER'), 'EWHATEVER');
  });
});
