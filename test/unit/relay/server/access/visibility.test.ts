// What anyone may see (issue 20 item 10): the unauthenticated /healthz shows no seq; a channel
// token sees its own channel's lastSeq (API and stream), never the relay-wide one; the channels
// API refuses secrets under 16 bytes on --public and warns about them otherwise. The stream's hello
// names what the token reads (issue 36 item 1: a forwarder keys its resume point by it) and says
// when the asked resume point is beyond every seq the relay gave out.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { post, relayProcesses, signed, spawnRelay, tempDir } from '../../support/helpers';
import { call, runCli, spawnRelayWith } from '../../support/publicHelpers';
import type { HelloMessage } from '../../../../../src/core/relay/protocol';

const SECRET = 'visibility-secret-0123456789';
const ADMIN = 'visibility-admin-token-0123456789';

/** The stream's hello message for `token`. */
function hello(url: string, token: string, query = '?since=0'): Promise<HelloMessage> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws${query}`, { headers: { authorization: `Bearer ${token}` } });
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as HelloMessage;
      if (m.type !== 'hello') return;
      ws.close();
      resolve(m);
    });
    ws.on('error', reject);
  });
}

describe('relay visibility: seqs and weak secrets (relay process)', function () {
  this.timeout(60_000);
  const procs = relayProcesses();

  it("/healthz shows no lastSeq; a channel token sees its own channel's lastSeq only", async () => {
    const data = tempDir();
    const relay = await spawnRelay(['--data', data]);
    procs.push(relay);
    const admin = readFileSync(join(data, 'token'), 'utf8').trim();
    const alice = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'alice', secrets: [SECRET] })).json.token as string;
    const body = '{"a":1}';
    const aliceSeq = ((await post(`${relay.url}/hooks/alice`, body, signed(SECRET, body))).json as { seq: number }).seq;
    for (let i = 0; i < 3; i++) await post(`${relay.url}/hooks/other`, `{"o":${i}}`);
    const health = await call('GET', `${relay.url}/healthz`, undefined);
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { ok: true }, 'no seq to anyone without a token');
    assert.equal((await call('GET', `${relay.url}/api/status`, admin)).json.lastSeq, aliceSeq + 3);
    const status = await call('GET', `${relay.url}/api/status`, alice);
    assert.equal(status.json.lastSeq, aliceSeq);
    assert.equal(status.json.journal, undefined, "the journal report is the admin's");
    assert.equal((await call('GET', `${relay.url}/api/deliveries`, alice)).json.lastSeq, aliceSeq);
    assert.equal((await hello(relay.url, alice)).lastSeq, aliceSeq);
    const fromNow = await hello(relay.url, alice, '');
    const generation = fromNow.scope?.kind === 'channel' ? fromNow.scope.generation : undefined;
    assert.match(generation ?? '', /^[\w-]+$/, JSON.stringify(fromNow.scope));
    assert.match(fromNow.relay ?? '', /^file:[\w-]+$/, 'the relay names its identity');
    assert.deepEqual(
      fromNow,
      { type: 'hello', lastSeq: aliceSeq, since: aliceSeq, scope: { kind: 'channel', channel: 'alice', generation }, relay: fromNow.relay },
      "from now: its channel's last seq; the scope names the channel and its generation",
    );
    assert.equal((await hello(relay.url, admin)).lastSeq, aliceSeq + 3);
    assert.deepEqual((await hello(relay.url, admin)).scope, { kind: 'admin' });
    // A resume point the relay never reached (its data was reset): said, to either token; the relay's own head is not.
    assert.equal((await hello(relay.url, alice, `?since=${aliceSeq + 3}`)).sinceAhead, undefined);
    assert.equal((await hello(relay.url, alice, `?since=${aliceSeq + 4}`)).sinceAhead, true);
    assert.equal((await hello(relay.url, admin, `?since=${aliceSeq + 4}`)).sinceAhead, true);
  });

  it('the channels API refuses secrets under 16 bytes on --public and warns about them otherwise', async () => {
    const pub = await spawnRelayWith(['--data', tempDir(), '--public', '--trust-proxy', '127.0.0.1', '--secret', SECRET], { SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
    procs.push(pub);
    for (const weak of ['a', ' ', '0123456789abcde']) {
      const r = await call('POST', `${pub.url}/api/channels`, ADMIN, { name: 'weak', secrets: [SECRET, weak] });
      assert.equal(r.status, 400, JSON.stringify(weak));
      assert.match(r.json.error, /secret #2 has fewer than 16 bytes/);
    }
    assert.equal((await call('POST', `${pub.url}/api/channels`, ADMIN, { name: 'strong', secrets: ['0123456789abcdef'] })).status, 201);

    const data = tempDir();
    const local = await spawnRelay(['--data', data]);
    procs.push(local);
    const admin = readFileSync(join(data, 'token'), 'utf8').trim();
    const made = await call('POST', `${local.url}/api/channels`, admin, { name: 'weak', secrets: ['a'] });
    assert.equal(made.status, 201);
    assert.match(made.json.warning, /secret #1 has fewer than 16 bytes/);
    const cli = await runCli(['channels', 'create', 'weak2', '--secret', 'short', '--relay', local.url], { SERVICE_HOOKS_RELAY_TOKEN: admin });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stderr, /warning: secret #1 has fewer than 16 bytes/);
  });
});
