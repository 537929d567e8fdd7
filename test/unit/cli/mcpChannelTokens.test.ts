// Pins `service-hooks mcp` (the agent tools) with a relay channel token and with a deleted channel's
// token: its own channel reads as with the admin token; another channel's deliveries, and everything
// once its channel is deleted, get a clear refusal that says what to do; the server keeps serving
// (no crash) and no token or secret is in any result. The SDK's client over real stdio, the bundled
// CLI, the emulator as the service and a real relay.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { start, TOKEN, type Harness } from '../emulator/helpers';
import { post, signed, spawnRelay, tempDir, type RelayProcess } from '../relay/support/helpers';
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
      assert.match(r.text, /refused the token \(401\): it was revoked, or its channel was deleted/);
    }
    assert.ok(sample.isError);
    assert.match(sample.text, /channel gone .* answered HTTP 404 \(FAILED\)/);
    assert.ok((await client.listTools()).tools.length > 0, 'still serving');
  });
});
