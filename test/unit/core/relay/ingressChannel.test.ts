// Pins the one reading of `<base>/hooks/<name>`: relayChannelFor names the channel a running relay
// routes that URL to, edge cases included, so the tree and the signing secret never disagree.
import { strict as assert } from 'node:assert';
import { hookChannel, ingressUrl, PLAIN_HOOK_RE, relayChannelFor, relayUrlsOf, type RelayUrls } from '../../../../src/core/relay/ingressChannel';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { tempDir } from '../../relay/support/helpers';

/** Path after the relay's address → the channel the relay delivers it to, or undefined (it answers 4xx). */
const CASES: [path: string, channel: string | undefined, why: string][] = [
  ['/hooks/a', 'a', 'the plain form'],
  ['/hooks/a?x=1', 'a', 'a query is ignored: the relay routes by path'],
  ['/hooks/a#f', 'a', 'a fragment is never sent'],
  ['/hooks/a?x=1#f', 'a', 'both'],
  ['/hooks', 'default', '/hooks is the default channel'],
  ['/hooks/', 'default', 'so is /hooks/'],
  ['/hooks?x=1', 'default', 'with a query'],
  ['/hooks/%61', 'a', 'a percent-encoded name is decoded'],
  ['/hooks/my%2Dch', 'my-ch', 'an encoded dash'],
  ['/hooks/a%2Eb', 'a.b', 'an encoded dot'],
  ['/hooks/a.b', 'a.b', 'a dot'],
  ['/x/../hooks/a', 'a', 'dot segments are resolved before the relay sees the path'],
  ['/hooks/.', 'default', "'.' is resolved away"],
  ['//hooks/a', undefined, "a double slash: the relay reads '//hooks' as a host (404)"],
  ['/hooks//a', undefined, 'an empty segment makes the name invalid (400)'],
  ['/hooks/a/', undefined, 'a trailing slash after a name makes it invalid (400)'],
  ['/hooks/a/b', undefined, 'a name with a slash (400)'],
  ['/hooks/a%2Fb', undefined, 'an encoded slash (400)'],
  ['/hooks/team%20a', undefined, 'a space is not in a channel name (400)'],
  ['/hooks/%E0%A4%A', undefined, 'a malformed escape (400)'],
  ['/hooks/..', undefined, "'..' leaves /hooks (404)"],
  ['/%68ooks/a', undefined, 'an encoded path prefix is another path (404)'],
  ['/HOOKS/a', undefined, 'paths are case-sensitive (404)'],
  ['/x/hooks/a', undefined, 'another path prefix (404)'],
  ['/api/status', undefined, 'not ingress'],
];

describe('the channel a webhook URL delivers to (relayChannelFor)', () => {
  describe('agrees with a running relay', () => {
    let relay: RelayServer;
    before(async () => {
      relay = await startRelay({ port: 0, dataDir: tempDir() });
    });
    after(() => relay.close());

    for (const [path, channel, why] of CASES)
      it(`${path} → ${channel ?? 'no channel'} (${why})`, async () => {
        const url = `${relay.url}${path}`;
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        const body = (await res.json()) as { seq?: number };
        const routed = res.status === 200 && body.seq !== undefined ? relay.store.get(body.seq)?.summary.channel : undefined;
        assert.equal(routed, channel, `the relay answered ${res.status}`);
        assert.equal(relayChannelFor(url, relayUrlsOf(undefined, relay.url)), channel);
      });
  });

  const remote: RelayUrls = {
    bases: ['https://relay.example.com', 'https://10.0.0.5:8443'],
    channels: [{ name: 'alice', ingressUrl: 'https://relay.example.com/hooks/alice' }],
  };
  it("the relay's reported ingress URLs first (behind --public-url they differ from the address)", () => {
    const urls = relayUrlsOf({ channels: [{ name: 'alice', ingressUrl: 'https://hooks.example.org/in/hooks/alice' }] }, 'https://relay.example.com');
    assert.equal(relayChannelFor('https://hooks.example.org/in/hooks/alice', urls), 'alice');
    assert.equal(relayChannelFor('https://hooks.example.org/in/hooks/alice?x=1', urls), 'alice', 'a query is ignored there too');
    assert.equal(relayChannelFor('https://hooks.example.org/in/hooks/bob', urls), undefined, 'a base the relay does not report');
  });
  it('any channel under a base the relay reports, or the address connected to', () => {
    assert.equal(relayChannelFor('https://relay.example.com/hooks/bob', remote), 'bob');
    const local = relayUrlsOf({ ingressBase: 'https://hooks.example.net', channels: [] }, 'http://127.0.0.1:8788');
    assert.equal(relayChannelFor('https://hooks.example.net/hooks/ci', local), 'ci');
    assert.equal(relayChannelFor('http://127.0.0.1:8788/hooks/ci', local), 'ci');
    assert.equal(relayChannelFor('http://127.0.0.1:9999/hooks/ci', local), undefined, 'another port on loopback is not this relay');
    assert.equal(relayChannelFor('http://localhost:8788/hooks/ci', local), undefined, 'a name the relay does not report is not matched');
    assert.equal(relayChannelFor('https://other.example.com/hooks/ci', remote), undefined);
  });
  it('scheme and host in any case; the default port dropped', () => {
    assert.equal(relayChannelFor('https://relay.example.com:443/hooks/alice', remote), 'alice');
    assert.equal(relayChannelFor('HTTPS://Relay.Example.COM:443/hooks/alice', remote), 'alice');
    assert.equal(relayChannelFor('https://relay.example.com:8443/hooks/alice', remote), undefined);
    assert.equal(relayChannelFor('http://relay.example.com/hooks/alice', remote), undefined, 'another scheme is another origin');
    assert.equal(relayChannelFor('https://10.0.0.5:8443/hooks/alice', remote), 'alice');
    assert.equal(relayChannelFor('http://relay.lan/hooks/x', { bases: ['http://relay.lan:80'], channels: [] }), 'x');
  });
  it("a base's own path prefix (a relay behind --public-url https://host/relay), with or without a trailing slash", () => {
    for (const base of ['https://example.com/relay', 'https://example.com/relay/']) {
      const prefixed: RelayUrls = { bases: [base], channels: [] };
      assert.equal(relayChannelFor('https://example.com/relay/hooks/ci', prefixed), 'ci');
      assert.equal(relayChannelFor('https://example.com/relay/hooks', prefixed), 'default');
      assert.equal(relayChannelFor('https://example.com/hooks/ci', prefixed), undefined, 'the wrong prefix');
      assert.equal(relayChannelFor('https://example.com/relayx/hooks/ci', prefixed), undefined, 'a longer segment is another prefix');
      assert.equal(relayChannelFor('https://example.com/relay//hooks/ci', prefixed), undefined, 'a double slash after the prefix');
    }
  });
  it('no channel for what is not an http(s) URL, or with no relay', () => {
    assert.equal(relayChannelFor('not a url', remote), undefined);
    assert.equal(relayChannelFor('ftp://relay.example.com/hooks/alice', remote), undefined);
    assert.equal(relayChannelFor('https://relay.example.com/hooks/alice', { bases: [], channels: [] }), undefined);
  });
  it('ingressUrl builds <base>/hooks/<name>, the name encoded; relayChannelFor reads back every name the relay takes', () => {
    const base = 'https://relay.example.com';
    assert.equal(ingressUrl('https://relay.example.com/in/'), 'https://relay.example.com/in/hooks/default');
    assert.equal(ingressUrl(base, 'a b/c'), 'https://relay.example.com/hooks/a%20b%2Fc');
    for (const name of ['default', 'team.a_1-x', 'A9']) assert.equal(relayChannelFor(ingressUrl(base, name), relayUrlsOf(undefined, base)), name);
    assert.equal(relayChannelFor(ingressUrl(base, 'a b/c'), relayUrlsOf(undefined, base)), undefined, 'a name the relay refuses');
  });
  it('hookChannel: the path the relay routes', () => {
    assert.equal(hookChannel('/hooks'), 'default');
    assert.equal(hookChannel('/hooks/'), 'default');
    assert.equal(hookChannel('/hooks/a%2Eb'), 'a.b');
    assert.equal(hookChannel('/hooks/%E0%A4%A'), undefined, 'bad percent-encoding');
    const plain = CASES.filter(([path]) => PLAIN_HOOK_RE.test(path));
    assert.ok(plain.length > 0);
    for (const [path] of plain) assert.equal(PLAIN_HOOK_RE.exec(path)![1], hookChannel(path), `the fast path reads ${path} as hookChannel does`);
  });
  it('relayUrlsOf drops missing parts and duplicates', () => {
    assert.deepEqual(relayUrlsOf(undefined, undefined, 'http://127.0.0.1:1'), { bases: ['http://127.0.0.1:1'], channels: [] });
    assert.deepEqual(relayUrlsOf({ ingressBase: 'https://a', channels: [] }, 'https://a').bases, ['https://a']);
  });
});
