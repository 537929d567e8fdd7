// Pins `service-hooks mcp`: the SDK's own client over real stdio with the bundled CLI as a child
// process, against the emulator (the service) and a real relay: the tools listed (acting ones only
// with --allow-actions), each called, no token or secret in any result, errors that say what to do.
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOLS } from '../../../src/core/agentTools';
import { callTool, mcpClient, type Called } from './mcpClient';
import { addHook, fire, start, TOKEN, type Harness } from '../emulator/helpers';
import { spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../relay/support/helpers';

const SECRET = 'mcp-test-signing-secret';
const WORKFLOW = 'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo ${{ secrets.GITHUB_TOKEN }}\n';

describe('service-hooks mcp (MCP SDK client over stdio)', function () {
  this.timeout(60_000);
  let emu: Harness;
  let relay: RelayProcess;
  let app: TargetApp;
  /** answers 500: its webhook's deliveries fail, so there is one to retry */
  let broken: TargetApp;
  let brokenHookId: string;
  let failedId: string;
  let work: string;
  let relayToken: string;
  let hookId: string;
  const clients: Client[] = [];

  before(async () => {
    work = tempDir('sh-mcp-');
    app = await startTarget();
    relay = await spawnRelay(['--secret', SECRET, '--data', join(work, 'relay'), '--forward', app.url]);
    relayToken = readFileSync(relay.ready.tokenFile!, 'utf8').trim();
    emu = await start();
    hookId = (await addHook(emu, 'acme/widgets', `${relay.url}/hooks/default`, ['push'], SECRET)).id;
    const [d] = await fire(emu, 'acme/widgets', 'push');
    await emu.attemptsOf(d!.id, 1);
    broken = await startTarget();
    broken.status = 500;
    brokenHookId = (await addHook(emu, 'acme/widgets', broken.url, ['issue'], SECRET)).id;
    const [f] = await fire(emu, 'acme/widgets', 'issue');
    failedId = f!.id;
    await emu.attemptsOf(failedId, 1);
    mkdirSync(join(work, 'repo', '.github', 'workflows'), { recursive: true });
    writeFileSync(join(work, 'repo', '.github', 'workflows', 'ci.yml'), WORKFLOW);
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await emu?.close();
    await relay?.stop();
    await app?.close();
    await broken?.close();
  });

  async function connect(extra: string[] = []): Promise<Client> {
    const env = { SERVICE_HOOKS_TOKEN: TOKEN, SERVICE_HOOKS_RELAY_TOKEN: relayToken, SERVICE_HOOKS_SECRET: SECRET };
    const client = await mcpClient(['--repo', 'acme/widgets', '--service', emu.url, '--relay', relay.url, ...extra], env, {
      name: 'mcp-test',
      cwd: join(work, 'repo'),
    });
    clients.push(client);
    return client;
  }

  const call = (client: Client, name: string, args: Record<string, unknown>): Promise<Called> => callTool(client, name, args, [TOKEN, relayToken, SECRET]);

  it('without --allow-actions: lists the reading tools only, and an acting one says how to turn it on', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      TOOLS.filter((t) => !t.acting)
        .map((t) => t.name)
        .sort(),
    );
    assert.ok(tools.every((t) => t.annotations?.readOnlyHint === true));
    const ping = await call(client, 'serviceHooks_pingWebhook', { webhookId: hookId });
    assert.ok(ping.isError);
    assert.match(ping.text, /--allow-actions/);
  });

  it('reads: webhooks, deliveries (service and relay channel), one delivery redacted, the signature, a workflow', async () => {
    const client = await connect();
    const hooks = await call(client, 'serviceHooks_listWebhooks', {});
    assert.match(hooks.text, new RegExp(`webhook ${hookId}: ${relay.url}/hooks/default · events push · signed`));
    assert.match(hooks.text, /last delivery: push OK \(HTTP 200\)/);

    const service = await call(client, 'serviceHooks_listDeliveries', { webhookId: hookId });
    assert.match(service.text, /1 deliveries \(1 OK, 0 failed\)/);
    const channel = await call(client, 'serviceHooks_listDeliveries', { channel: 'default' });
    assert.match(channel.text, /- seq 1: push at .* · channel default · signature verified · OK HTTP 200 to /);

    const one = await call(client, 'serviceHooks_getDelivery', { seq: 1 });
    assert.match(one.text, /x-service-signature: <redacted>/);
    assert.match(one.text, /"ref"|"repository"/);
    assert.match(one.text, /Forward attempts:\n- .*OK HTTP 200/);

    const why = await call(client, 'serviceHooks_explainSignature', { seq: 1 });
    assert.match(why.text, /it matches/);

    const lint = await call(client, 'serviceHooks_lintWorkflow', { path: '.github/workflows/ci.yml' });
    assert.match(lint.text, /6:\d+ \[\S+\] .*GITHUB_TOKEN/);
    assert.match(lint.text, /SERVICE_TOKEN/);
    assert.equal(readFileSync(join(work, 'repo', '.github', 'workflows', 'ci.yml'), 'utf8'), WORKFLOW, 'lint changes nothing');
  });

  it('bad input gets a clear error; a path outside the working folder is refused', async () => {
    const client = await connect();
    const both = await call(client, 'serviceHooks_listDeliveries', { webhookId: hookId, channel: 'default' });
    assert.ok(both.isError);
    assert.match(both.text, /give either webhookId or channel/);
    const outside = await call(client, 'serviceHooks_lintWorkflow', { path: '../relay/token' });
    assert.ok(outside.isError);
    assert.match(outside.text, /inside the workspace/);
  });

  it('with --allow-actions: ping, retry, replay, send a sample and apply a port, each saying what happened', async () => {
    const client = await connect(['--allow-actions']);
    const { tools } = await client.listTools();
    assert.equal(tools.length, TOOLS.length);

    const ping = await call(client, 'serviceHooks_pingWebhook', { webhookId: hookId });
    assert.match(ping.text, new RegExp(`Pinged webhook ${hookId}: delivery \\S+ OK \\(HTTP 200\\)`));
    // A delivery the service delivered (to the relay) is not retried there: the tool says to replay it from the relay.
    const delivered = new RegExp(`Pinged webhook ${hookId}: delivery (\\S+) OK`).exec(ping.text)![1]!;
    const again = await call(client, 'serviceHooks_retryDelivery', { webhookId: hookId, deliveryId: delivered });
    assert.match(again.text, /answers 409\), so it will not send it again\. .*serviceHooks_replayDelivery/);
    const listed = await call(client, 'serviceHooks_listDeliveries', { webhookId: brokenHookId });
    assert.match(listed.text, new RegExp(`- delivery ${failedId}: issue at .* · FAILED \\(HTTP 500\\)`));
    const retry = await call(client, 'serviceHooks_retryDelivery', { webhookId: brokenHookId, deliveryId: failedId });
    assert.match(retry.text, new RegExp(`Retried delivery ${failedId} of webhook ${brokenHookId}: FAILED \\(HTTP 500\\)`));
    assert.match(retry.text, /Attempts:\n- .* FAILED HTTP 500/);

    const before = app.received.length;
    const replay = await call(client, 'serviceHooks_replayDelivery', { seq: 1 });
    assert.match(replay.text, new RegExp(`Replayed #1 to ${app.url}: HTTP 200`));
    assert.ok(app.received.length > before, 'the app got the replay');

    const sample = await call(client, 'serviceHooks_sendSampleEvent', { channel: 'default', event: 'release' });
    assert.match(sample.text, /Sent a sample release to channel default .* signed with the secret held for it: it answered HTTP 200/);

    const port = await call(client, 'serviceHooks_applyPortFixes', { path: '.github/workflows/ci.yml' });
    assert.match(port.text, /wrote 1 fix/);
    assert.match(readFileSync(join(work, 'repo', '.github', 'workflows', 'ci.yml'), 'utf8'), /secrets\.SERVICE_TOKEN/);
  });
});
