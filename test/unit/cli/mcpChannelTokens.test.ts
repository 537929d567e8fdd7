// Pins `service-hooks mcp` (the agent tools) with a relay channel token and with a deleted channel's
// token: its own channel reads as with the admin token; another channel's deliveries, and everything
// once its channel is deleted, get a clear refusal that says what to do; the server keeps serving
// (no crash) and no token or secret is in any result. The SDK's client over real stdio, the bundled
// CLI, the emulator as the service and a real relay. Then a walk: store (file journal, JetStream on a
// real nats-server) × transport (plain HTTP, TLS with an openssl-made CA) × token (admin, a channel's,
// a deleted channel's, a wrong one, none; on TLS also the admin's without the CA trusted), one relay
// tool each, every answer the documented one. Left out of the walk: the service's tools (they never
// reach the relay) and every relay tool per cell (the first describe walks them on one cell).
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { start, TOKEN, type Harness } from '../emulator/helpers';
import { Agent, request } from 'undici';
import { post, signed, spawnRelay, tempDir, type RelayProcess } from '../relay/support/helpers';
import { makeTestCerts, type TestCerts } from '../relay/support/certs';
import { startNats, type NatsCluster } from '../nats/natsServers';
import { call as api } from '../relay/support/publicHelpers';
import { callTool, mcpClient, type Called } from './mcpClient';

const ADMIN = 'mcp-channel-admin-token-0123456789';
const SECRET = 'mcp-channel-secret-0123456789';

describe('service-hooks mcp with a channel token and a deleted channel token', function () {
  this.timeout(60_000);
  let emu: Harness;
  let relay: RelayProcess;
  const tokens: Record<string, string> = {};
  const seqs: Record<string, number> = {};
  const clients: Client[] = [];

  before(async () => {
    const work = tempDir('sh-mcp-tokens-');
    relay = await spawnRelay(['--data', join(work, 'relay')], { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
    emu = await start();
    for (const name of ['dev', 'ops', 'gone']) {
      tokens[name] = (await api('POST', `${relay.url}/api/channels`, ADMIN, { name, secrets: [SECRET] })).json.token as string;
      const body = JSON.stringify({ name });
      const r = await post(`${relay.url}/hooks/${name}`, body, signed(SECRET, body, { 'x-service-event': 'push' }));
      assert.equal(r.status, 200);
      seqs[name] = (r.json as { seq: number }).seq;
    }
    assert.equal((await api('DELETE', `${relay.url}/api/channels/gone`, ADMIN)).status, 204);
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await emu?.close();
    await relay?.stop();
  });

  async function connect(relayToken: string): Promise<Client> {
    const args = ['--repo', 'acme/widgets', '--service', emu.url, '--relay', relay.url, '--allow-actions'];
    const client = await mcpClient(args, { SERVICE_HOOKS_TOKEN: TOKEN, SERVICE_HOOKS_RELAY_TOKEN: relayToken }, { name: 'mcp-tokens-test' });
    clients.push(client);
    return client;
  }

  const call = (client: Client, name: string, args: Record<string, unknown>): Promise<Called> =>
    callTool(client, name, args, [TOKEN, ADMIN, SECRET, ...Object.values(tokens)]);

  it("a channel token: its own channel's deliveries; another channel's are refused, saying why", async () => {
    const client = await connect(tokens.dev!);
    const own = await call(client, 'serviceHooks_listDeliveries', { channel: 'dev' });
    const one = await call(client, 'serviceHooks_getDelivery', { seq: seqs.dev });
    const why = await call(client, 'serviceHooks_explainSignature', { seq: seqs.dev });
    const other = await call(client, 'serviceHooks_listDeliveries', { channel: 'ops' });
    const otherOne = await call(client, 'serviceHooks_getDelivery', { seq: seqs.ops });
    const replayOther = await call(client, 'serviceHooks_replayDelivery', { seq: seqs.ops });
    const replayOwn = await call(client, 'serviceHooks_replayDelivery', { seq: seqs.dev });
    assert.match(own.text, new RegExp(`- seq ${seqs.dev}: push at .* · channel dev · signature verified`));
    assert.ok(!/channel (ops|gone)/.test(own.text), own.text);
    assert.match(one.text, /x-service-signature: <redacted>/);
    assert.match(why.text, /it matches/);
    assert.ok(other.isError);
    assert.match(other.text, /reaches only its own channel \(403\): ask for that channel's deliveries, or give the relay's admin token/);
    // Another channel's delivery is not found, as for any seq the token cannot see (nothing says it exists).
    for (const r of [otherOne, replayOther]) {
      assert.ok(r.isError);
      assert.match(r.text, /no such delivery or channel \(404\)/);
    }
    assert.match(replayOwn.text, new RegExp(`Replayed #${seqs.dev}`));
    assert.ok((await client.listTools()).tools.length > 0, 'still serving');
  });

  it("a deleted channel's token: every relay tool refuses clearly, and the server keeps serving", async () => {
    const client = await connect(tokens.gone!);
    const list = await call(client, 'serviceHooks_listDeliveries', { channel: 'gone' });
    const one = await call(client, 'serviceHooks_getDelivery', { seq: seqs.gone });
    const why = await call(client, 'serviceHooks_explainSignature', { seq: seqs.gone });
    const replay = await call(client, 'serviceHooks_replayDelivery', { seq: seqs.gone });
    const sample = await call(client, 'serviceHooks_sendSampleEvent', { channel: 'gone', event: 'push' });
    for (const r of [list, one, why, replay]) {
      assert.ok(r.isError);
      assert.match(r.text, /refused the token \(401\): it is wrong, was revoked, or its channel was deleted/);
    }
    assert.ok(sample.isError);
    assert.match(sample.text, /channel gone .* answered HTTP 404 \(FAILED\)/);
    assert.ok((await client.listTools()).tools.length > 0, 'still serving');
  });
});

describe('service-hooks mcp: store × transport × token, one relay tool each (the walk)', function () {
  this.timeout(60_000);
  let nats: NatsCluster;
  let certs: TestCerts;
  const relays: RelayProcess[] = [];
  const clients: Client[] = [];
  before(async () => {
    nats = await startNats(1);
    certs = makeTestCerts();
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    for (const r of relays) await r.stop('SIGKILL');
    await nats?.stop();
  });

  type Kind = 'admin' | 'channel' | 'deleted' | 'wrong' | 'none' | 'admin, CA not trusted';
  /** What serviceHooks_listDeliveries { channel: dev } answers each kind of token (docs/agent-tools.md). */
  const documented = (kind: Kind, seq: number, dev: string): RegExp => {
    switch (kind) {
      case 'admin':
      case 'channel':
        return new RegExp(`- seq ${seq}: push at .* · channel ${dev} · signature verified`);
      case 'deleted':
      case 'wrong':
        return /refused the token \(401\): it is wrong, was revoked, or its channel was deleted/;
      case 'none':
        return /no relay token: pass --token, set SERVICE_HOOKS_RELAY_TOKEN, or --data DIR of the relay .*; start a relay/;
      case 'admin, CA not trusted':
        return /The relay's TLS certificate is not trusted here \(\w+\): start it with NODE_EXTRA_CA_CERTS set to the PEM file of the CA/;
    }
  };

  for (const store of ['file journal', 'JetStream'] as const) {
    for (const tls of [false, true]) {
      it(`${store}, ${tls ? 'TLS' : 'plain HTTP'}: each kind of token gets its documented answer`, async () => {
        const args = [
          '--data',
          tempDir(),
          ...(store === 'JetStream' ? ['--store', nats.urls] : []),
          ...(tls ? ['--tls-cert', certs.serverCert, '--tls-key', certs.serverKey] : []),
        ];
        const relay = await spawnRelay(args, { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN });
        relays.push(relay);
        const https = tls ? new Agent({ connect: { ca: certs.ca } }) : undefined;
        const api = async (method: string, path: string, body?: unknown) => {
          const r = await request(`${relay.url}${path}`, {
            method: method as 'GET',
            headers: {
              authorization: `Bearer ${ADMIN}`,
              'content-type': 'application/json',
              ...(typeof body === 'string' ? signed(SECRET, body, { 'x-service-event': 'push' }) : {}),
            },
            body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
            dispatcher: https,
          });
          const text = await r.body.text();
          return { status: r.statusCode, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
        };
        const names = store === 'JetStream' ? { dev: `dev${relays.length}`, gone: `gone${relays.length}` } : { dev: 'dev', gone: 'gone' };
        const made: Record<string, string> = {};
        for (const name of [names.dev, names.gone]) {
          const c = await api('POST', '/api/channels', { name, secrets: [SECRET] });
          assert.equal(c.status, 201, JSON.stringify(c.json));
          made[name] = String(c.json.token);
        }
        const body = JSON.stringify({ walk: names.dev });
        const posted = await api('POST', `/hooks/${names.dev}`, body);
        assert.equal(posted.status, 200, JSON.stringify(posted.json));
        assert.equal((await api('DELETE', `/api/channels/${names.gone}`)).status, 204);
        await https?.close();

        const kinds: Kind[] = ['admin', 'channel', 'deleted', 'wrong', 'none', ...(tls ? (['admin, CA not trusted'] as const) : [])];
        const tokenOf: Record<Kind, string | undefined> = {
          admin: ADMIN,
          channel: made[names.dev],
          deleted: made[names.gone],
          wrong: 'shc_not-a-token-of-this-relay-0123456789abcdef',
          none: undefined,
          'admin, CA not trusted': ADMIN,
        };
        const got: string[] = [];
        const want: string[] = [];
        for (const kind of kinds) {
          const env: Record<string, string> = {};
          if (tokenOf[kind]) env.SERVICE_HOOKS_RELAY_TOKEN = tokenOf[kind];
          if (tls && kind !== 'admin, CA not trusted') env.NODE_EXTRA_CA_CERTS = certs.caCert;
          // --data names an empty folder: no token file for 'none' to find.
          const client = await mcpClient(['--relay', relay.url, '--data', tempDir()], env, { name: 'mcp-walk' });
          clients.push(client);
          const r = await callTool(client, 'serviceHooks_listDeliveries', { channel: names.dev }, [ADMIN, SECRET, ...Object.values(made)]);
          const ok = kind === 'admin' || kind === 'channel';
          const seq = (posted.json as { seq: number }).seq;
          got.push(
            `${kind}: ${r.isError === !ok && documented(kind, seq, names.dev).test(r.text) ? 'as documented' : `${r.isError ? 'error' : 'ok'} ${r.text}`}`,
          );
          want.push(`${kind}: as documented`);
          await client.close();
        }
        assert.deepEqual(got, want);
      });
    }
  }
});
