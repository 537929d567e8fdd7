// Pins the agent tools in the editor (issue 39 item 3): each tool invoked through vscode.lm.invokeTool
// against the emulator (the service) and a relay the editor is attached to; its result checked, no
// token or secret in any result, and each acting tool asked first: VS Code called its
// prepareInvocation, which returned confirmationMessages, before invoke (in extension tests VS Code
// confirms without showing the dialog, so the steps the extension recorded are checked).
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { TOOLS } from '../../../src/core/agentTools/definitions';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { activated, run } from './editor';
import { HOOK_SECRET, TOKEN, emulatorCall, startApp, startEmulatorFixture, startRelayFixture, until, type App, type Emulator, type Relay } from './fixtures';
import { freePort } from '../../support/freePort';

const REPO = 'acme/agents';
const WORKFLOW = 'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo ${{ secrets.GITHUB_TOKEN }}\n';

describe('Agent tools through vscode.lm (issue 39)', function () {
  let api: ServiceHooksApi;
  let emulator: Emulator;
  let relay: Relay;
  let app: App;
  let relayHook: string;
  let appHook: string;
  let brokenHook: string;
  let failedDelivery: string;
  let workflowDir: string;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const call = <T>(method: string, path: string, body?: unknown) => emulatorCall<T>(emulator, method, path, body);
  const secrets = () => [TOKEN, relay.token, HOOK_SECRET];

  async function invoke(name: string, input: object): Promise<string> {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    for (const s of secrets()) assert.ok(!text.includes(s), `${name} returned a secret: ${text}`);
    return text;
  }

  /** Invokes an acting tool and checks that it asked first, with `said` in its confirmation. */
  async function invokeActing(name: string, input: object, said: RegExp): Promise<string> {
    const before = api.agentTools.steps.length;
    const text = await invoke(name, input);
    const steps = api.agentTools.steps.slice(before);
    assert.deepEqual(
      steps.map((s) => `${s.tool}:${s.phase}`),
      [`${name}:prepare`, `${name}:invoke`],
    );
    const asked = steps[0]!.confirmation;
    assert.ok(asked, `${name} asked for a confirmation before it ran`);
    assert.match(`${asked.title}\n${asked.message}`, said);
    for (const s of secrets()) assert.ok(!`${asked.title}${asked.message}`.includes(s), `${name}'s confirmation shows a secret`);
    return text;
  }

  async function hook(url: string, events: string[]): Promise<string> {
    return (await call<{ id: string }>('POST', `/api/v1/repos/${REPO}/webhooks`, { url, content_type: 'json', secret: HOOK_SECRET, events })).id;
  }

  async function fire(event: string): Promise<{ id: string; webhook_id: string }[]> {
    let attempts = 0;
    const sub = emulator.onAttempt(() => attempts++);
    try {
      const { deliveries } = await call<{ deliveries: { id: string; webhook_id: string }[] }>('POST', `/_emulator/repos/${REPO}/events`, { event });
      await until(
        (l) => emulator.onAttempt(l),
        () => (attempts >= deliveries.length ? true : undefined),
        `${event} attempts`,
      );
      return deliveries;
    } finally {
      sub.dispose();
    }
  }

  before(async function () {
    api = await activated();
    emulator = await startEmulatorFixture();
    app = await startApp();
    relay = await startRelayFixture(app.url);
    await api.commandContext.services.relay.attach(relay.port, relay.token);
    await config().update(SETTINGS.repositories, [REPO], target);
    await config().update(SETTINGS.baseUrl, emulator.url, target);
    assert.deepEqual(await run(COMMANDS.signIn, { token: TOKEN }), { signedIn: true, validated: true });
    relayHook = await hook(`http://127.0.0.1:${relay.port}/hooks/default`, ['push']);
    appHook = await hook(app.url, ['issue']);
    brokenHook = await hook(`http://127.0.0.1:${await freePort()}/hook`, ['release']);
    await fire('push');
    failedDelivery = (await fire('release')).find((d) => d.webhook_id === brokenHook)!.id;
    workflowDir = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.github', 'agent-tools');
    mkdirSync(workflowDir, { recursive: true });
    writeFileSync(join(workflowDir, 'ci.yml'), WORKFLOW);
  });

  after(async function () {
    rmSync(workflowDir, { recursive: true, force: true });
    await run(COMMANDS.signOut);
    for (const key of [SETTINGS.baseUrl, SETTINGS.repositories]) await config().update(key, undefined, target);
    await run(COMMANDS.stopRelay);
    await relay?.close();
    await app?.close();
    await emulator?.close();
  });

  it('a reading tool runs without asking', async () => {
    const before = api.agentTools.steps.length;
    await invoke('serviceHooks_listWebhooks', {});
    assert.deepEqual(api.agentTools.steps.slice(before), [
      { tool: 'serviceHooks_listWebhooks', phase: 'prepare' },
      { tool: 'serviceHooks_listWebhooks', phase: 'invoke' },
    ]);
  });

  it('every tool is registered with vscode.lm, with its schema', () => {
    for (const t of TOOLS) {
      const info = vscode.lm.tools.find((x) => x.name === t.name);
      assert.ok(info, `${t.name} registered`);
      assert.deepEqual(info.inputSchema, t.inputSchema);
    }
  });

  it('listWebhooks: each webhook with its last delivery', async () => {
    const text = await invoke('serviceHooks_listWebhooks', {});
    assert.match(text, new RegExp(`^3 webhook\\(s\\) of ${REPO}:`));
    assert.match(
      text,
      new RegExp(
        `webhook ${relayHook}: http://127.0.0.1:${relay.port}/hooks/default · events push · signed \\(secret set\\) · last delivery: push OK \\(HTTP 200\\)`,
      ),
    );
    assert.match(text, new RegExp(`webhook ${brokenHook}: .* last delivery: release FAILED \\(`));
  });

  it('listDeliveries: a webhook (service) and a relay channel; bad input says what to give', async () => {
    assert.match(await invoke('serviceHooks_listDeliveries', { webhookId: brokenHook }), new RegExp(`- delivery ${failedDelivery}: release at .* · FAILED`));
    assert.match(
      await invoke('serviceHooks_listDeliveries', { channel: 'default' }),
      /- seq \d+: push at .* · channel default · signature verified · OK HTTP 200 to /,
    );
    assert.match(await invoke('serviceHooks_listDeliveries', { webhookId: relayHook, channel: 'default' }), /give either webhookId or channel/);
  });

  it('getDelivery: headers with the signature redacted, the body, the attempts', async () => {
    const [first] = (await api.commandContext.services.relay.listDeliveries({ channel: 'default' })).deliveries;
    const text = await invoke('serviceHooks_getDelivery', { seq: first!.seq });
    assert.match(text, /x-service-signature: <redacted>/);
    assert.match(text, /Forward attempts:\n- .*OK HTTP 200/);
    const service = await invoke('serviceHooks_getDelivery', { webhookId: brokenHook, deliveryId: failedDelivery });
    assert.match(service.toLowerCase(), /x-service-signature: <redacted>/);
    assert.match(service, /Attempts:\n- .*FAILED/);
  });

  it("explainSignature: the relay's verdict; a service delivery without a held secret says what to do", async () => {
    const [first] = (await api.commandContext.services.relay.listDeliveries({ channel: 'default' })).deliveries;
    assert.match(await invoke('serviceHooks_explainSignature', { seq: first!.seq }), /it matches/);
    assert.match(
      await invoke('serviceHooks_explainSignature', { webhookId: brokenHook, deliveryId: failedDelivery }),
      /Explain Signature" on the delivery in the editor/,
    );
  });

  it('lintWorkflow: findings and the proposed text, the file unchanged', async () => {
    const text = await invoke('serviceHooks_lintWorkflow', { path: '.github/agent-tools/ci.yml' });
    assert.match(text, /6:\d+ \[\S+\] .*GITHUB_TOKEN/);
    assert.match(text, /secrets\.SERVICE_TOKEN/);
    assert.equal(readFileSync(join(workflowDir, 'ci.yml'), 'utf8'), WORKFLOW);
  });

  it('pingWebhook asks first, then pings', async () => {
    const text = await invokeActing(
      'serviceHooks_pingWebhook',
      { webhookId: relayHook },
      new RegExp(`^Ping the webhook\\?[\\s\\S]*webhook ${relayHook} at http://127.0.0.1:${relay.port}/hooks/default`),
    );
    assert.match(text, new RegExp(`^Pinged webhook ${relayHook}: delivery \\S+ OK \\(HTTP 200\\)`));
  });

  it('retryDelivery asks first, then retries', async () => {
    const text = await invokeActing(
      'serviceHooks_retryDelivery',
      { webhookId: brokenHook, deliveryId: failedDelivery },
      new RegExp(`^Retry the delivery\\?[\\s\\S]*${failedDelivery}`),
    );
    assert.match(text, new RegExp(`^Retried delivery ${failedDelivery} of webhook ${brokenHook}: FAILED`));
  });

  it("replayDelivery asks first, then replays to the channel's app", async () => {
    const [first] = (await api.commandContext.services.relay.listDeliveries({ channel: 'default' })).deliveries;
    const before = app.requests.length;
    const text = await invokeActing('serviceHooks_replayDelivery', { seq: first!.seq }, new RegExp(`^Replay the delivery\\?[\\s\\S]*#${first!.seq}`));
    assert.match(text, new RegExp(`^Replayed #${first!.seq} to ${app.url}: HTTP 200`));
    assert.ok(app.requests.length > before, 'the app got it again');
  });

  it('sendSampleEvent asks first, then posts the sample', async () => {
    const before = app.requests.length;
    const text = await invokeActing(
      'serviceHooks_sendSampleEvent',
      { webhookId: appHook, event: 'issue' },
      new RegExp(`^Send a sample event\\?[\\s\\S]*issue[\\s\\S]*${app.url}`),
    );
    assert.match(text, /^Sent a sample issue to webhook .* it answered HTTP 200\. Marked as a test send/);
    const got = await app.next(before);
    assert.equal(got.headers['x-service-event'], 'issue');
  });

  it('applyPortFixes asks first, then writes the fixes', async () => {
    const text = await invokeActing(
      'serviceHooks_applyPortFixes',
      { path: '.github/agent-tools/ci.yml' },
      /^Apply the port fixes\?[\s\S]*\.github\/agent-tools\/ci\.yml/,
    );
    assert.match(text, /wrote 1 fix/);
    assert.match(readFileSync(join(workflowDir, 'ci.yml'), 'utf8'), /secrets\.SERVICE_TOKEN/);
  });
});
