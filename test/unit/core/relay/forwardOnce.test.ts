// One delivery reaches one app once: the editor does not post what the relay's own --forward posts
// to the same app, nor what a subscriber already forwarded (before a Reload Window).
import { strict as assert } from 'node:assert';
import { alreadyForwarded, sameApp } from '../../../../src/core/relay/forwardOnce';
import { SUBSCRIBER_TARGET } from '../../../../src/core/relay/protocol';

describe('forwarding once', () => {
  const app = 'http://127.0.0.1:3000/webhook';
  it("the relay's own target for the same app: not posted again", () => {
    assert.equal(alreadyForwarded([{ target: app, status: 'pending', attempts: 0 }], app), 'relay');
    assert.equal(alreadyForwarded([{ target: 'http://127.0.0.1:3000/webhook/', status: 'ok', attempts: 1 }], 'HTTP://127.0.0.1:3000/webhook'), 'relay');
  });
  it('a subscriber that forwarded it with a 2xx: not posted again; one still trying: posted', () => {
    assert.equal(alreadyForwarded([{ target: SUBSCRIBER_TARGET, status: 'ok', attempts: 1, lastStatus: 204 }], app), 'subscriber');
    assert.equal(alreadyForwarded([{ target: SUBSCRIBER_TARGET, status: 'pending', attempts: 0 }], app), undefined);
  });
  it('another app, or nothing yet: posted', () => {
    assert.equal(alreadyForwarded([], app), undefined);
    assert.equal(alreadyForwarded([{ target: 'http://127.0.0.1:3001/webhook', status: 'ok', attempts: 1 }], app), undefined);
    assert.equal(sameApp('http://localhost:3000/a', 'http://127.0.0.1:3000/a'), false, 'no guessing about names');
    assert.equal(sameApp('http://127.0.0.1:80/a', 'http://127.0.0.1/a'), true, 'default port');
  });
});
