// One delivery reaches one app once: the editor does not post what the relay's own --forward posts
// to the same app, nor what a subscriber already forwarded (before a Reload Window).
import { strict as assert } from 'node:assert';
import { alreadyForwarded, sameApp } from '../../../../src/core/relay/forwardOnce';
import { ingressChannel, ingressUrl } from '../../../../src/core/relay/ingressChannel';
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

describe('the channel a webhook URL delivers to', () => {
  const base = 'https://relay.example.com';
  it("the relay's own ingress URLs first (behind --public-url they differ from the address)", () => {
    assert.equal(
      ingressChannel('https://hooks.example.org/in/hooks/alice', base, [{ name: 'alice', ingressUrl: 'https://hooks.example.org/in/hooks/alice' }]),
      'alice',
    );
  });
  it('<base>/hooks/<name>, percent-encoded names, default ports, a trailing slash; /hooks is default', () => {
    assert.equal(ingressChannel('https://relay.example.com:443/hooks/a%2Eb/', base), 'a.b');
    assert.equal(ingressChannel('https://RELAY.example.com/hooks', base), 'default');
    assert.equal(ingressChannel('http://127.0.0.1:8788/hooks/e2e', 'http://127.0.0.1:8788'), 'e2e');
  });
  it('ingressUrl builds <base>/hooks/<name>, the name encoded, and ingressChannel reads it back', () => {
    assert.equal(ingressUrl('https://relay.example.com/in/'), 'https://relay.example.com/in/hooks/default');
    assert.equal(ingressUrl(base, 'a b/c'), 'https://relay.example.com/hooks/a%20b%2Fc');
    for (const name of ['default', 'team.a_1-x', 'a b/c']) assert.equal(ingressChannel(ingressUrl(base, name), base), name);
  });
  it('another host, port, path or a query: no channel of this relay', () => {
    assert.equal(ingressChannel('https://relay.example.com:8443/hooks/a', base), undefined);
    assert.equal(ingressChannel('https://other.example.com/hooks/a', base), undefined);
    assert.equal(ingressChannel('https://relay.example.com/hooks/a/b', base), undefined);
    assert.equal(ingressChannel('https://relay.example.com/hooks/a?x=1', base), undefined);
    assert.equal(ingressChannel('http://127.0.0.1:8789/hooks/a', 'http://127.0.0.1:8788'), undefined);
  });
});
