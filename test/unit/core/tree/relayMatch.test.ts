// Which relay channel a webhook URL delivers to (src/core/tree): the ingress or public URL, default
// and other ports, /hooks paths under a base, percent-encoded names, and non-http(s) URLs as none.
import { strict as assert } from 'node:assert';
import { normalIngress, relayChannelFor, relayUrlsOf, type RelayUrls } from '../../../../src/core/tree';

const remote: RelayUrls = {
  bases: ['https://relay.example.com', 'https://10.0.0.5:8443'],
  channels: [
    { name: 'alice', ingressUrl: 'https://relay.example.com/hooks/alice' },
    { name: 'team a', ingressUrl: 'https://relay.example.com/hooks/team%20a' },
  ],
};

describe('relay URL matching (which channel a webhook URL delivers to)', () => {
  it('matches a channel by the ingress URL the relay reports', () => {
    assert.equal(relayChannelFor('https://relay.example.com/hooks/alice', remote), 'alice');
    assert.equal(relayChannelFor('https://relay.example.com/hooks/bob', remote), 'bob', 'any channel under a base the relay reports');
    assert.equal(relayChannelFor('https://relay.example.com/hooks', remote), 'default');
  });
  it('matches the public URL, not loopback and a port', () => {
    const local: RelayUrls = relayUrlsOf({ ingressBase: 'https://hooks.example.net', channels: [] }, 'http://127.0.0.1:8788');
    assert.equal(relayChannelFor('https://hooks.example.net/hooks/ci', local), 'ci');
    assert.equal(relayChannelFor('http://127.0.0.1:8788/hooks/ci', local), 'ci', 'the address connected to is the relay too');
    assert.equal(relayChannelFor('http://127.0.0.1:9999/hooks/ci', local), undefined, 'another port on loopback is not this relay');
    assert.equal(relayChannelFor('http://localhost:8788/hooks/ci', local), undefined, 'a name the relay does not report is not matched');
    assert.equal(relayChannelFor('https://other.example.com/hooks/ci', remote), undefined);
  });
  it('ports: the default port is the same URL, another port is not', () => {
    assert.equal(relayChannelFor('https://relay.example.com:443/hooks/alice', remote), 'alice');
    assert.equal(relayChannelFor('HTTPS://Relay.Example.COM:443/hooks/alice/', remote), 'alice', 'scheme and host in any case, trailing slash');
    assert.equal(relayChannelFor('https://relay.example.com:8443/hooks/alice', remote), undefined);
    assert.equal(relayChannelFor('http://relay.example.com/hooks/alice', remote), undefined, 'another scheme is another origin');
    assert.equal(relayChannelFor('https://10.0.0.5:8443/hooks/alice', remote), 'alice');
    assert.equal(relayChannelFor('https://10.0.0.5/hooks/alice', remote), undefined);
    const http: RelayUrls = { bases: ['http://relay.lan:80'], channels: [] };
    assert.equal(relayChannelFor('http://relay.lan/hooks/x', http), 'x');
  });
  it('paths: only /hooks and /hooks/<name> under a base (and a base with a path prefix)', () => {
    assert.equal(relayChannelFor('https://relay.example.com/hooks/alice/extra', remote), undefined);
    assert.equal(relayChannelFor('https://relay.example.com/api/status', remote), undefined);
    assert.equal(relayChannelFor('https://relay.example.com/', remote), undefined);
    const prefixed: RelayUrls = { bases: ['https://example.com/relay/'], channels: [] };
    assert.equal(relayChannelFor('https://example.com/relay/hooks/ci', prefixed), 'ci');
    assert.equal(relayChannelFor('https://example.com/hooks/ci', prefixed), undefined);
    assert.equal(relayChannelFor('https://relay.example.com/hooks/alice?x=1#f', remote), 'alice', 'query and fragment are ignored');
  });
  it('percent-encoded names: the same name however it is encoded', () => {
    assert.equal(relayChannelFor('https://relay.example.com/hooks/team%20a', remote), 'team a');
    assert.equal(relayChannelFor('https://relay.example.com/hooks/%61lice', remote), 'alice');
    assert.equal(relayChannelFor('https://relay.example.com/hooks/my%2Dch', remote), 'my-ch');
    assert.equal(relayChannelFor('https://relay.example.com/hooks/%E0%A4%A', remote), '%E0%A4%A', 'a malformed escape stays as written');
  });
  it('not a URL, or not http(s): no channel', () => {
    assert.equal(relayChannelFor('not a url', remote), undefined);
    assert.equal(relayChannelFor('ftp://relay.example.com/hooks/alice', remote), undefined);
    assert.equal(normalIngress('mailto:x@y'), undefined);
    assert.equal(relayChannelFor('https://relay.example.com/hooks/alice', { bases: [], channels: [] }), undefined);
  });
  it('relayUrlsOf drops missing parts and duplicates', () => {
    assert.deepEqual(relayUrlsOf(undefined, undefined, 'http://127.0.0.1:1'), { bases: ['http://127.0.0.1:1'], channels: [] });
    assert.deepEqual(relayUrlsOf({ ingressBase: 'https://a', channels: [] }, 'https://a').bases, ['https://a']);
  });
});
