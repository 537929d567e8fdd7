// Connect to Relay's address rules, the status bar text and the Relay view's state row.
import { strict as assert } from 'node:assert';
import { CHANNEL_NAME_RE } from '../../../../src/core/relay/channelName';
import {
  forwardTargets,
  parseRelayAddress,
  relayRow,
  relayStatusBar,
  seqKey,
  serviceIsLocal,
  shortUrl,
  webhookUrlChoices,
  channelNameFor,
  localAppUrlProblem,
  describeConnectError,
  type RelayState,
} from '../../../../src/core/tree';

describe('relay address (Connect to Relay…)', () => {
  it('defaults to https and derives the WebSocket URL', () => {
    assert.deepEqual(parseRelayAddress('relay.example.com'), {
      httpUrl: 'https://relay.example.com',
      wsUrl: 'wss://relay.example.com/ws',
      label: 'relay.example.com',
      tls: true,
    });
    assert.deepEqual(parseRelayAddress(' wss://relay.example.com:8443/ws '), {
      httpUrl: 'https://relay.example.com:8443',
      wsUrl: 'wss://relay.example.com:8443/ws',
      label: 'relay.example.com:8443',
      tls: true,
    });
    assert.equal((parseRelayAddress('https://example.com/relay/') as { wsUrl: string }).wsUrl, 'wss://example.com/relay/ws');
  });

  it('allows clear text only on loopback', () => {
    assert.equal((parseRelayAddress('http://127.0.0.1:8788') as { wsUrl: string }).wsUrl, 'ws://127.0.0.1:8788/ws');
    assert.match((parseRelayAddress('http://relay.example.com') as { problem: string }).problem, /https:\/\/ for relay\.example\.com/);
    assert.match((parseRelayAddress('ws://10.0.0.5:8788') as { problem: string }).problem, /unencrypted/);
  });

  it('refuses what is not an address, with a sentence', () => {
    for (const bad of [
      '',
      '   ',
      'ftp://x',
      'https://user:pw@relay.example.com',
      'https://relay.example.com/?token=x',
      'relay example.com',
      'https://re\u0015lay',
    ]) {
      const r = parseRelayAddress(bad);
      assert.ok('problem' in r && r.problem.length > 10, `${JSON.stringify(bad)} → ${JSON.stringify(r)}`);
    }
  });

  it('keys the resume point by relay and channel', () => {
    assert.equal(seqKey('https://relay.example.com'), 'serviceHooks.relay.seq:https://relay.example.com#*');
    assert.notEqual(seqKey('https://a', 'alice'), seqKey('https://a', 'bob'));
    assert.notEqual(seqKey('https://a', 'alice'), seqKey('https://b', 'alice'));
  });
});

describe('relay status bar', () => {
  it('shows relay ⇄ local app and the state for a remote relay', () => {
    const up = relayStatusBar({ state: 'running', remote: 'relay.example.com', forwardTo: 'http://localhost:3000/webhook' });
    assert.equal(up.text, '$(radio-tower) relay.example.com ⇄ localhost:3000');
    assert.equal(up.command, 'serviceHooks.relayMenu', 'a click opens the menu: it never disconnects at once');
    const failing = relayStatusBar({
      state: 'running',
      remote: 'relay.example.com',
      forwardTo: 'http://localhost:3000/webhook',
      forwardFailing: true,
      detail: 'delivery #4 to http://localhost:3000/webhook: HTTP 502',
    });
    assert.equal(failing.text, '$(warning) relay.example.com ⇄ localhost:3000');
    assert.match(failing.tooltip, /HTTP 502.*retrying/);
    assert.match(
      relayStatusBar({ state: 'connecting', remote: 'relay.example.com', forwardTo: 'http://localhost:3000' }).text,
      /^\$\(loading~spin\) relay\.example\.com ⇄ localhost:3000$/,
    );
    const off = relayStatusBar({ state: 'offline', remote: 'relay.example.com', detail: 'Cannot connect' });
    assert.equal(off.command, 'serviceHooks.relayMenu');
    assert.match(relayStatusBar({ state: 'running', remote: 'r.example' }).tooltip, /not forwarding/);
  });

  it("names the forward set-up's own app first, then serviceHooks.relay.forwardUrl, each app once", () => {
    const sessions = [{ to: 'http://localhost:3000/webhook' }, { to: 'http://localhost:4000/hooks' }, { to: 'http://localhost:3000/webhook' }];
    assert.deepEqual(forwardTargets(sessions, 'http://localhost:5000/'), [
      'http://localhost:3000/webhook',
      'http://localhost:4000/hooks',
      'http://localhost:5000/',
    ]);
    assert.deepEqual(forwardTargets([], 'http://localhost:5000/'), ['http://localhost:5000/']);
    assert.deepEqual(forwardTargets(sessions.slice(0, 1), undefined), ['http://localhost:3000/webhook']);
    assert.deepEqual(forwardTargets([], undefined), []);
    const two = relayStatusBar({ state: 'running', remote: 'relay.example.com', forwardTo: 'http://localhost:3000/webhook', otherTargets: 2 });
    assert.equal(two.text, '$(radio-tower) relay.example.com ⇄ localhost:3000 +2');
    assert.match(two.tooltip, /forwarding to http:\/\/localhost:3000\/webhook and 2 other apps\./);
    assert.match(relayStatusBar({ state: 'running', remote: 'r.example', forwardTo: 'http://localhost:3000', otherTargets: 1 }).tooltip, /and 1 other app\./);
  });

  it('shows the port of a local relay, and the failure when it did not start', () => {
    assert.equal(relayStatusBar({ state: 'running', port: 8788 }).text, '$(radio-tower) Relay :8788');
    const failed = relayStatusBar({ state: 'failed', detail: 'Port 8788 is already in use' });
    assert.equal(failed.text, '$(error) Relay');
    assert.equal(failed.tooltip, 'Port 8788 is already in use');
    assert.equal(failed.command, 'serviceHooks.relayMenu');
    assert.equal(
      relayStatusBar({ state: 'running', port: 8788, ownsProcess: true }).command,
      'serviceHooks.relayMenu',
      'a click never stops the relay at once',
    );
  });

  it('has a text for every state, local and remote', () => {
    const states: RelayState[] = ['stopped', 'starting', 'running', 'connecting', 'offline', 'failed'];
    for (const state of states) {
      assert.ok(relayStatusBar({ state, port: 1 }).text.length > 0);
      assert.match(relayStatusBar({ state, remote: 'r.example', forwardTo: 'http://127.0.0.1:3000' }).text, /r\.example ⇄ 127\.0\.0\.1:3000/);
    }
  });

  it('shortens a URL to its host', () => {
    assert.equal(shortUrl('http://localhost:3000/webhook'), 'localhost:3000');
    assert.equal(shortUrl('not a url'), 'not a url');
  });
});

describe('Relay view state row of a remote relay', () => {
  it('names the relay and the forward target', () => {
    const row = relayRow({ kind: 'relayState', state: 'running', remote: 'relay.example.com', forwardTo: 'http://localhost:3000/webhook' });
    assert.equal(row.label, 'Connected to relay.example.com');
    assert.equal(row.description, '⇄ http://localhost:3000/webhook');
    assert.equal(row.contextValue, 'relayState.remote.running');
    assert.equal(relayRow({ kind: 'relayState', state: 'connecting', remote: 'relay.example.com' }).label, 'Connecting to relay.example.com…');
    assert.equal(relayRow({ kind: 'relayState', state: 'running', port: 8788 }).contextValue, 'relayState.running');
  });
});

describe('Add Webhook payload URL choices', () => {
  it('knows which services can reach this machine', () => {
    for (const u of [
      'http://127.0.0.1:8787',
      'http://localhost:8787',
      'http://10.1.2.3',
      'http://172.20.0.1',
      'http://192.168.1.5:80',
      'http://[::1]:8787',
      'http://build.local',
    ])
      assert.ok(serviceIsLocal(u), u);
    for (const u of ['https://service.example.com', 'http://172.32.0.1', 'http://8.8.8.8', 'not a url']) assert.ok(!serviceIsLocal(u), u);
  });

  it("offers the connected relay's channel first, and the local relay only for a service that can reach it", () => {
    const remote = { label: 'relay.example.com', channels: [{ name: 'alice', ingressUrl: 'https://relay.example.com/hooks/alice' }] };
    const localUrl = 'http://127.0.0.1:8788/hooks/default';
    assert.deepEqual(
      webhookUrlChoices({ remote, localUrl, serviceBaseUrl: 'https://service.example.com' }).map((c) => c.url),
      ['https://relay.example.com/hooks/alice'],
    );
    assert.deepEqual(
      webhookUrlChoices({ remote, localUrl, serviceBaseUrl: 'http://127.0.0.1:8787' }).map((c) => c.url),
      ['https://relay.example.com/hooks/alice'],
      "never the local relay's http://127.0.0.1 for a remote relay",
    );
    const own = webhookUrlChoices({
      remote: { ...remote, ingressBase: 'https://relay.example.com/' },
      localUrl,
      serviceBaseUrl: 'http://127.0.0.1:8787',
      newChannel: 'widgets-a1b2c3',
    });
    assert.deepEqual(
      own.map((c) => [c.url, c.newChannel]),
      [
        ['https://relay.example.com/hooks/widgets-a1b2c3', 'widgets-a1b2c3'],
        ['https://relay.example.com/hooks/alice', undefined],
      ],
      'a channel of its own first, under the URL the relay reports',
    );
    assert.deepEqual(
      webhookUrlChoices({ localUrl, serviceBaseUrl: 'http://127.0.0.1:8787', newChannel: 'widgets-a1b2c3' }).map((c) => c.url),
      [localUrl.replace('/default', '/widgets-a1b2c3'), localUrl],
    );
    assert.deepEqual(webhookUrlChoices({ localUrl, serviceBaseUrl: 'http://127.0.0.1:8787' }), [{ url: localUrl, description: 'local relay' }]);
  });
});

describe('Forward Webhooks to Local App helpers', () => {
  it("names a channel after the repository, within the relay's channel rule", () => {
    const re = CHANNEL_NAME_RE;
    assert.equal(channelNameFor('acme/widgets', 'a1b2c3d4'), 'widgets-a1b2c3');
    for (const repo of ['acme/.hidden', 'x/' + 'y'.repeat(80), 'a/ü-name', 'a/___', 'a/dots..in...name'])
      assert.match(channelNameFor(repo, 'ffffff'), re, repo);
  });

  it('checks the local app URL', () => {
    assert.equal(localAppUrlProblem('http://localhost:3000/webhook'), undefined);
    assert.match(String(localAppUrlProblem('localhost:3000')), /http/);
    assert.match(String(localAppUrlProblem('ftp://x')), /http/);
    assert.match(String(localAppUrlProblem('http://u:p@localhost')), /user/);
  });
});

describe('Connect to Relay failures, in words', () => {
  it('says what to do for a rejected token, an untrusted certificate, an unreachable host', () => {
    assert.match(describeConnectError('r.example', { status: 401, message: 'x' }), /rejected the token \(401\)/);
    assert.match(describeConnectError('r.example', { cause: { code: 'SELF_SIGNED_CERT_IN_CHAIN' } }), /not trusted.*NODE_EXTRA_CA_CERTS/);
    assert.match(describeConnectError('r.example', { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), /not trusted/);
    assert.equal(describeConnectError('r.example', { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }), 'Cannot reach r.example (ECONNREFUSED).');
    assert.match(describeConnectError('r.example', { message: 'boom' }), /Cannot connect to r\.example: boom/);
    assert.equal(
      describeConnectError('127.0.0.1:8443', { code: 'UND_ERR_SOCKET', message: 'other side closed' }, false),
      '127.0.0.1:8443 closed the connection without answering: it speaks TLS on this port, so use https://127.0.0.1:8443',
    );
    assert.doesNotMatch(
      describeConnectError('r.example', { code: 'UND_ERR_SOCKET', message: 'other side closed' }, true),
      /use https/,
      'https already: something else',
    );
  });
});
