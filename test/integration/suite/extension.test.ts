// Every command of the extension, driven against an emulator and a relay this suite starts itself.
// Commands are run through vscode.commands.executeCommand with the documented plain-object
// arguments (see src/extension/commands/*.ts), so no UI is needed.
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activated, run } from './editor';
import type { WebhookTreeNode } from '../../../src/core/tree';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, CONTEXT, SETTINGS } from '../../../src/extension/ids';
import { tokenKey } from '../../../src/extension/storage/tokenStore';
import { figures } from './index';
import { HOOK_SECRET, TOKEN, emulatorCall, startApp, startEmulatorFixture, startRelayFixture, until, type App, type Emulator, type Relay } from './fixtures';

const REPO = 'acme/widgets';

interface Hook {
  id: string;
  url: string;
  events: string[];
  secret_set: boolean;
}
interface Delivery {
  id: string;
  success: boolean;
  status: number | null;
  event: string;
  attempts: unknown[];
}

describe('Service Webhooks extension', function () {
  let api: ServiceHooksApi;
  let emulator: Emulator;
  let relay: Relay;
  let app: App;
  let relayHook: Hook;
  let failingHook: Hook;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;

  const service = <T>(method: string, path: string, body?: unknown) => emulatorCall<T>(emulator, method, path, body);
  const hooks = () => service<Hook[]>('GET', `/api/v1/repos/${REPO}/webhooks`);
  const deliveries = (id: string) => service<{ total: number; failed: number; deliveries: Delivery[] }>('GET', `/api/v1/webhooks/${id}/deliveries?limit=100`);
  const fire = (event: string) => service('POST', `/_emulator/repos/${REPO}/events`, { event });
  const tree = () => api.commandContext.webhooks;
  const relayManager = () => api.commandContext.services.relay;
  const lastError = () => api.takeLastError();

  async function children(node?: WebhookTreeNode): Promise<WebhookTreeNode[]> {
    return tree().getChildren(node);
  }
  async function webhookNode(id: string): Promise<WebhookTreeNode & { kind: 'webhook' }> {
    const [repo] = await children();
    assert.ok(repo && repo.kind === 'repository', 'a repository row');
    const node = (await children(repo)).find((n) => n.kind === 'webhook' && n.webhook.id === id);
    assert.ok(node && node.kind === 'webhook', `webhook ${id} in the tree`);
    return node;
  }

  before(async function () {
    api = await activated();
    figures.activationMs = Number(api.activationMs.toFixed(2));
    app = await startApp();
    emulator = await startEmulatorFixture();
    relay = await startRelayFixture(app.url);
    await relayManager().attach(relay.port, relay.token);
    await config().update(SETTINGS.baseUrl, emulator.url, target);
    await config().update(SETTINGS.repositories, [REPO], target);
    await config().update(SETTINGS.relayPort, relay.port, target);
    await config().update(SETTINGS.relayForwardUrl, app.url, target);
    await run(COMMANDS.signOut);
  });

  after(async function () {
    await run(COMMANDS.stopRelay);
    for (const key of Object.values(SETTINGS)) await config().update(key, undefined, target);
    await relay?.close();
    await emulator?.close();
    await app?.close();
  });

  it('registers every command of package.json without touching the network', async function () {
    const all = new Set(await vscode.commands.getCommands(true));
    for (const id of Object.values(COMMANDS)) assert.ok(all.has(id), id);
    const r = await run<{ activationMs: number }>(COMMANDS.showActivationTime);
    assert.equal(r?.activationMs, api.activationMs);
    assert.deepEqual(await run(COMMANDS.showLogs), { shown: true });
  });

  it('signed out: the Webhooks view is empty (its welcome view shows Sign In)', async function () {
    assert.deepEqual(await children(), []);
  });

  it('Sign In rejects a bad token with a 401 and stores nothing', async function () {
    const r = await run(COMMANDS.signIn, { token: 'wrong-token' });
    assert.equal(r, undefined);
    const err = lastError();
    assert.ok(err, 'an error was reported');
    assert.ok(!err.message.includes('wrong-token'), 'the token is not in the message');
    assert.equal(await api.commandContext.services.tokens.get(emulator.url), undefined);
  });

  it('Sign In stores the token in SecretStorage, validated by listing webhooks', async function () {
    const r = await run<{ signedIn: boolean; validated: boolean }>(COMMANDS.signIn, { token: TOKEN });
    assert.deepEqual(r, { signedIn: true, validated: true });
    assert.equal(await api.commandContext.extension.secrets.get(tokenKey(emulator.url)), TOKEN, 'kept for the base URL it was created for');
    assert.equal(await api.commandContext.extension.secrets.get('serviceHooks.token'), undefined, 'not under an address-free key');
    const inspected = JSON.stringify(Object.values(SETTINGS).map((k) => config().inspect(k)));
    assert.ok(!inspected.includes(TOKEN), 'the token is in no setting');
  });

  it('no webhooks yet: the tree is empty so the "Add Webhook" welcome view shows', async function () {
    const existing = await hooks();
    for (const h of existing) await service('DELETE', `/api/v1/repos/${REPO}/webhooks/${h.id}`);
    await run(COMMANDS.refresh);
    assert.deepEqual(await children(), []);
  });

  it('Add Webhook creates a signed webhook to the relay and an unsigned one to a failing endpoint', async function () {
    relayHook = (await run<{ webhook: Hook }>(COMMANDS.addWebhook, {
      repo: REPO,
      url: `http://127.0.0.1:${relay.port}/hooks/default`,
      events: ['push', 'pull_request'],
      secret: HOOK_SECRET,
    }))!.webhook;
    const gen = await run<{ webhook: Hook; secretGenerated: boolean; secretLength: number }>(COMMANDS.addWebhook, {
      repo: REPO,
      url: `${emulator.url}/_emulator/fail/500`,
      events: ['push'],
      secret: 'generate',
    });
    assert.equal(gen?.secretGenerated, true);
    assert.equal(gen?.secretLength, 43, "32 random bytes as base64url (newSecret, as the CLI's --generate-secret)");
    const listed = await hooks();
    relayHook = listed.find((h) => h.url.includes('/hooks/default'))!;
    failingHook = listed.find((h) => h.url.includes('/_emulator/fail/500'))!;
    assert.ok(relayHook && failingHook);
    assert.deepEqual(relayHook.events, ['push', 'pull_request']);
    assert.equal(relayHook.secret_set, true);
    const bad = await run(COMMANDS.addWebhook, { repo: REPO, url: 'ftp://nope', events: ['push'], secret: 'none' });
    assert.equal(bad, undefined);
    assert.equal(lastError()?.kind, 'user');
  });

  it('the tree shows repository → webhooks with label, events and a tooltip without the secret', async function () {
    const node = await webhookNode(relayHook.id);
    const item = tree().getTreeItem(node);
    assert.equal(item.label, `127.0.0.1:${relay.port}/hooks/default`);
    assert.equal(item.description, 'push, pull_request');
    assert.equal(item.contextValue, 'webhook');
    assert.match(String(item.tooltip), /Secret: set/);
    assert.ok(!String(item.tooltip).includes(HOOK_SECRET));
  });

  it('Edit Events patches the subscription', async function () {
    await run(COMMANDS.editEvents, { webhookId: relayHook.id, events: ['push', 'pull_request', 'issue'] });
    relayHook = (await hooks()).find((h) => h.id === relayHook.id)!;
    assert.deepEqual(relayHook.events, ['push', 'pull_request', 'issue']);
  });

  it('Ping Webhook sends a test delivery that shows up under "Deliveries N · ✓ N · ✗ N"', async function () {
    const r = await run<{ delivery: Delivery }>(COMMANDS.pingWebhook, { webhookId: failingHook.id });
    assert.ok(r?.delivery, 'a delivery record');
    const total = await until(
      (l) => emulator.onAttempt(l),
      async () => ((await deliveries(failingHook.id)).total >= 1 ? true : undefined),
      'the ping delivery',
    );
    assert.ok(total);
    const node = await webhookNode(failingHook.id);
    const [deliveriesRow] = await children(node);
    assert.ok(deliveriesRow && deliveriesRow.kind === 'deliveries');
    assert.match(String(tree().getTreeItem(deliveriesRow).label), /^Deliveries \d+ · ✓ \d+ · ✗ \d+$/);
    assert.match(String(tree().getTreeItem(deliveriesRow).tooltip), /from the service's deliveries endpoint/);
  });

  it('events reach the relay, verified, and are forwarded byte-for-byte to the app', async function () {
    const before = app.requests.length;
    await fire('push');
    const forwarded = await app.next(before);
    const live = await until(
      (l) => relayManager().onDidChange(l),
      () =>
        relayManager()
          .live.newestFirst()
          .find((d) => d.event === 'push'),
      'a push in the Relay view',
    ).catch(async () => {
      await relayManager().reload();
      return relayManager()
        .live.newestFirst()
        .find((d) => d.event === 'push');
    });
    assert.ok(live, 'the live list has the push');
    assert.equal(live.verification, 'verified');
    const detail = await relayManager().getDelivery(live.seq);
    assert.ok(Buffer.from(detail.bodyBase64, 'base64').equals(forwarded.body), 'same bytes');
    const rows = api.commandContext.relayTree.getChildren();
    assert.ok(rows.some((n) => n.kind === 'relayState' && n.state === 'running'));
    assert.ok(rows.some((n) => n.kind === 'relayChannel' && n.channel.name === 'default'));
  });

  it('a service without the deliveries endpoint: the tree shows what reached the relay, and says so', async function () {
    const documented = await startEmulatorFixture({ deliveriesEndpoint: false });
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(documented.url + path, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.ok(res.ok, `${method} ${path} → ${res.status}`);
      return (await res.json()) as T;
    };
    try {
      await config().update(SETTINGS.baseUrl, documented.url, target);
      await api.commandContext.services.tokens.set(documented.url, TOKEN); // the token is kept per address
      const hook = await call<Hook>('POST', `/api/v1/repos/${REPO}/webhooks`, {
        url: `http://127.0.0.1:${relay.port}/hooks/default`,
        content_type: 'json',
        secret: HOOK_SECRET,
        events: ['issue'],
      });
      const before = app.requests.length;
      await call('POST', `/_emulator/repos/${REPO}/events`, { event: 'issue' });
      await app.next(before); // the relay journaled it and forwarded it
      const [deliveriesRow] = await children(await webhookNode(hook.id));
      assert.ok(deliveriesRow && deliveriesRow.kind === 'deliveries');
      const item = tree().getTreeItem(deliveriesRow);
      assert.match(String(item.label), /^Deliveries [1-9]\d* · ✓ [1-9]\d* · ✗ \d+$/);
      assert.match(String(item.tooltip), /from the relay journal/);
      const rows = await children(deliveriesRow);
      assert.ok(
        rows.some((n) => n.kind === 'delivery' && n.delivery.event === 'issue'),
        'the issue delivery is listed',
      );
    } finally {
      await config().update(SETTINGS.baseUrl, emulator.url, target);
      await documented.close();
    }
  });

  it('Retry Delivery retries a failed delivery (the failing endpoint answers 500)', async function () {
    const failed = await until(
      (l) => emulator.onAttempt(l),
      async () => (await deliveries(failingHook.id)).deliveries.find((d) => !d.success && d.event === 'push'),
      'a failed push',
    );
    assert.equal(failed.status, 500);
    const attemptsBefore = failed.attempts.length;
    const r = await run<{ delivery: Delivery }>(COMMANDS.retryDelivery, { webhookId: failingHook.id, deliveryId: failed.id });
    assert.ok(r?.delivery);
    const after = (await deliveries(failingHook.id)).deliveries.find((d) => d.id === failed.id)!;
    assert.ok(after.attempts.length > attemptsBefore, 'an attempt was added');
    const rows = await children((await children(await webhookNode(failingHook.id)))[0]);
    const row = rows.find((n) => n.kind === 'delivery' && n.delivery.id === failed.id);
    assert.ok(row);
    const item = tree().getTreeItem(row);
    assert.equal(item.contextValue, 'delivery.failed');
    assert.match(String(item.label), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ✗ 500$/);
  });

  it('Retry All Failed retries every failed delivery of a webhook', async function () {
    const r = await run<{ retried: number; errors: string[] }>(COMMANDS.retryAllFailed, { webhookId: failingHook.id, confirm: true });
    assert.ok(r && r.retried >= 1, `retried ${r?.retried}`);
    assert.deepEqual(r.errors, []);
  });

  it('Load more… pages a long delivery list', async function () {
    tree().pageSize = 2;
    try {
      for (let i = 0; i < 4; i++) await fire('push');
      await until(
        (l) => emulator.onAttempt(l),
        async () => ((await deliveries(failingHook.id)).total >= 6 ? true : undefined),
        'six deliveries',
      );
      tree().refresh();
      const deliveriesRow = (await children(await webhookNode(failingHook.id)))[0]!;
      const page1 = await children(deliveriesRow);
      assert.equal(page1.filter((n) => n.kind === 'delivery').length, 2);
      const more = page1[page1.length - 1]!;
      assert.equal(more.kind, 'loadMore');
      const r = await run<{ shown: number }>(COMMANDS.loadMore, more);
      assert.equal(r?.shown, 4);
      assert.equal((await children(deliveriesRow)).filter((n) => n.kind === 'delivery').length, 4);
      // Two quick clicks on "Load more…": one page after the other, no row twice.
      tree().refresh();
      const first = await children(deliveriesRow);
      const again = first[first.length - 1]!;
      assert.equal(again.kind, 'loadMore');
      const [a, b] = await Promise.all([run<{ shown: number }>(COMMANDS.loadMore, again), run<{ shown: number }>(COMMANDS.loadMore, again)]);
      assert.deepEqual([a?.shown, b?.shown], [4, 6]);
      const ids = (await children(deliveriesRow)).map((n) => tree().getTreeItem(n).id);
      assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids.join(', ')}`);
    } finally {
      tree().pageSize = 50;
      tree().refresh();
    }
  });

  it('Open Delivery shows headers and body as a read-only JSON document (service and relay)', async function () {
    const d = (await deliveries(relayHook.id)).deliveries[0]!;
    const r = await run<{ uri: string; text: string }>(COMMANDS.openDelivery, { webhookId: relayHook.id, deliveryId: d.id });
    assert.ok(r);
    assert.equal(vscode.Uri.parse(r.uri).scheme, 'service-hooks-delivery');
    const doc = JSON.parse(r.text);
    assert.ok(doc.headers && doc.body !== undefined);
    assert.equal(doc.event, d.event, 'event read through serviceHooks.eventHeader');
    assert.equal(doc.deliveryId, d.id, 'delivery id read through serviceHooks.deliveryHeader');
    assert.match(JSON.stringify(doc.headers), /X-Service-Signature/i);
    assert.equal(vscode.window.activeTextEditor?.document.languageId, 'json');
    const seq = relayManager().live.newestFirst()[0]!.seq;
    const rr = await run<{ text: string }>(COMMANDS.openDelivery, { seq });
    assert.match(rr!.text, /"source": "relay journal"/);
  });

  it('Explain Signature: ok with the right secret, findings with a wrong one', async function () {
    const seq = relayManager()
      .live.newestFirst()
      .find((x) => x.verification === 'verified')!.seq;
    const ok = await run<{ ok: boolean; findings: string[] }>(COMMANDS.explainSignature, { seq, secrets: [HOOK_SECRET] });
    assert.equal(ok?.ok, true);
    const bad = await run<{ ok: boolean; findings: string[] }>(COMMANDS.explainSignature, { seq, secrets: ['not-the-secret'] });
    assert.equal(bad?.ok, false);
    assert.ok(bad.findings.length > 0);
  });

  it('Copy as cURL redacts the signature and copies to the clipboard', async function () {
    const seq = relayManager().live.newestFirst()[0]!.seq;
    const detail = await relayManager().getDelivery(seq);
    const sig = Object.entries(detail.headers).find(([k]) => k.toLowerCase() === 'x-service-signature')?.[1];
    const r = await run<{ curl: string }>(COMMANDS.copyAsCurl, { seq });
    assert.ok(r?.curl.startsWith('curl -X POST'));
    assert.ok(sig && !r.curl.includes(sig.replace(/^sha256=/, '')), 'no signature');
    assert.ok(!r.curl.includes(HOOK_SECRET));
    assert.equal(await vscode.env.clipboard.readText(), r.curl);
    const fromService = await run<{ curl: string }>(COMMANDS.copyAsCurl, {
      webhookId: relayHook.id,
      deliveryId: (await deliveries(relayHook.id)).deliveries[0]!.id,
    });
    assert.ok(fromService?.curl.includes('<redacted>'));
  });

  it('Replay Delivery sends a journal entry to the app again through the relay', async function () {
    const seq = relayManager().live.newestFirst()[0]!.seq;
    const before = app.requests.length;
    const r = await run<{ seq: number; attempts: unknown[] }>(COMMANDS.replayDelivery, { seq });
    assert.equal(r?.seq, seq);
    const replayed = await app.next(before);
    const detail = await relayManager().getDelivery(seq);
    assert.ok(replayed.body.equals(Buffer.from(detail.bodyBase64, 'base64')));
    // from a service delivery row: matched to the journal by its delivery id
    const d = (await deliveries(relayHook.id)).deliveries.find((x) => x.event === 'push')!;
    const node = (await children((await children(await webhookNode(relayHook.id)))[0])).find((n) => n.kind === 'delivery' && n.delivery.id === d.id);
    assert.ok(node, 'delivery row');
    const r2 = await run<{ seq: number }>(COMMANDS.replayDelivery, node);
    assert.ok(r2?.seq);
  });

  it('Explain Signature and Copy as cURL use the exact bytes of a relay delivery whose body is not UTF-8', async function () {
    const raw = Buffer.from('{"name":"caf\xe9"}', 'latin1');
    const signature = 'sha256=' + createHmac('sha256', HOOK_SECRET).update(raw).digest('hex');
    const deliveryId = `latin1-${process.pid}`;
    const res = await fetch(`http://127.0.0.1:${relay.port}/hooks/default`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-Event': 'push', 'X-Service-Delivery': deliveryId, 'X-Service-Signature': signature },
      body: raw,
    });
    await res.arrayBuffer();
    assert.ok(res.ok, `ingress answered ${res.status}`);
    const entry = (await relayManager().listDeliveries({ limit: 50 })).deliveries.find((d) => d.deliveryId === deliveryId);
    assert.ok(entry, 'the delivery is in the journal');
    assert.equal(entry.verification, 'verified');
    const explained = await run<{ ok: boolean; findings: string[] }>(COMMANDS.explainSignature, { seq: entry.seq, secrets: [HOOK_SECRET] });
    assert.equal(explained?.ok, true, JSON.stringify(explained));
    const copied = await run<{ curl: string; binary: boolean }>(COMMANDS.copyAsCurl, { seq: entry.seq });
    assert.equal(copied?.binary, true);
    assert.match(copied.curl, /^printf '\{"name":"caf\\351"\}' \| curl -X POST /);
    assert.match(copied.curl, /--data-binary @-$/);
    const opened = await run<{ text: string }>(COMMANDS.openDelivery, { seq: entry.seq });
    assert.equal(JSON.parse(opened!.text).bodyBase64, raw.toString('base64'));
  });

  it('Import Issues validates every record first and lists problems by index', async function () {
    const dir = mkdtempSync(join(tmpdir(), 'sh-issues-'));
    const badFile = join(dir, 'bad.json');
    writeFileSync(
      badFile,
      JSON.stringify([
        { number: 1, title: 'ok', state: 'open' },
        { number: 2, state: 'open' },
        { title: 'x', state: 'open' },
      ]),
    );
    const bad = await run<{ imported: number; problems: { index: number }[] }>(COMMANDS.importIssues, { file: badFile, repo: REPO });
    assert.equal(bad?.imported, 0);
    assert.deepEqual(
      bad.problems.map((p) => p.index),
      [1, 2],
    );
    const goodFile = join(dir, 'good.json');
    const records = Array.from({ length: 7 }, (_, i) => ({
      number: i + 1,
      title: `Issue ${i + 1}`,
      body: i === 0 ? null : '',
      labels: ['bug'],
      assignees: [],
      state: i % 2 ? 'OPEN' : 'closed',
    })); // gh CLI exports say OPEN
    writeFileSync(goodFile, JSON.stringify(records));
    const good = await run<{ imported: number[]; failed: unknown[]; notSent: number[] }>(COMMANDS.importIssues, { file: goodFile, repo: REPO, chunkSize: 3 });
    assert.deepEqual(good?.imported, [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(good.failed, []);
    assert.deepEqual(good.notSent, []);
  });

  it('Create CI Secret validates the name and creates the secret', async function () {
    const r = await run<{ name: string; protected: boolean }>(COMMANDS.createSecret, {
      repo: REPO,
      name: 'DEPLOY_KEY',
      value: 's3cr3t-value',
      protected: true,
    });
    assert.deepEqual(r, { name: 'DEPLOY_KEY', protected: true });
    assert.equal(await run(COMMANDS.createSecret, { repo: REPO, name: '1-bad', value: 'x', protected: false }), undefined);
    assert.equal(lastError()?.kind, 'user');
  });

  it('Set Up Self-Hosted Runner opens a terminal; the token goes through the environment only', async function () {
    const runnerToken = 'runner-token-xyz';
    const opened = until(
      (l) => vscode.window.onDidOpenTerminal(l),
      () => vscode.window.terminals.find((t) => t.name === 'Service Runner'),
      'the runner terminal',
    );
    const r = await run<{ terminal: string; commands: string[] }>(COMMANDS.setUpRunner, { token: runnerToken, execute: false });
    assert.equal(r?.terminal, 'Service Runner');
    assert.ok(r.commands[1]!.includes(`${emulator.url}/runner/install.sh`));
    assert.match(r.commands[1]!, / -o '[^']+\/install\.sh'$/, 'downloaded to a file');
    assert.ok(
      r.commands.every((c) => !/\|\s*sh\b/.test(c)),
      'never piped into sh',
    );
    assert.ok(
      r.commands.every((c) => !c.includes(runnerToken)),
      'the token is not on any command line',
    );
    const terminal = await opened;
    const env = (terminal.creationOptions as vscode.TerminalOptions).env ?? {};
    assert.equal((terminal.creationOptions as vscode.TerminalOptions).isTransient, true, 'not restored after a reload');
    assert.equal(env.SERVICE_RUNNER_TOKEN, runnerToken);
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('serviceHooks')).includes(runnerToken));
    terminal.dispose();
  });

  describe('workflow files', function () {
    let file: vscode.Uri;
    const BAD = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ secrets.GITHUB_TOKEN }}\n';

    before(function () {
      const folder = vscode.workspace.workspaceFolders?.[0];
      assert.ok(folder, 'the suite needs a workspace folder (the runner opens one)');
      const dir = join(folder.uri.fsPath, '.github', 'workflows');
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `integration-${process.pid}.yml`);
      writeFileSync(path, BAD);
      file = vscode.Uri.file(path);
    });

    after(async function () {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await vscode.workspace.fs.delete(file).then(undefined, () => undefined);
    });

    it('diagnostics appear on a workflow file, with a quick fix per finding and "Fix all in this file"', async function () {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const diags = await until(
        (l) => vscode.languages.onDidChangeDiagnostics(l),
        () => {
          const d = vscode.languages.getDiagnostics(file).filter((x) => x.source === 'service-hooks');
          return d.length > 0 ? d : undefined;
        },
        'workflow diagnostics',
      );
      const token = diags.find((d) => doc.getText(d.range).includes('GITHUB_TOKEN'));
      assert.ok(token, `a finding on GITHUB_TOKEN: ${diags.map((d) => d.message).join('; ')}`);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', file, token.range);
      const quick = actions.find((a) => a.title.startsWith('Replace with') && a.edit);
      assert.ok(quick, 'a quick fix');
      assert.ok(actions.some((a) => a.title === 'Fix all workflow names in this file'));
      await vscode.workspace.applyEdit(quick.edit!);
      assert.ok(doc.getText().includes('SERVICE_TOKEN'));
      // undo, then Fix all in this file through its command
      await vscode.commands.executeCommand('undo');
      assert.ok(doc.getText().includes('GITHUB_TOKEN'));
      const r = await run<{ fixed: number }>(COMMANDS.fixAllInFile, file, { confirm: true });
      assert.ok(r && r.fixed >= 1);
      assert.ok(!doc.getText().includes('GITHUB_TOKEN'));
      await vscode.commands.executeCommand('undo');
    });

    it('Fix All Workflow Names in Workspace edits every matched file', async function () {
      const doc = await vscode.workspace.openTextDocument(file);
      await doc.save().then(undefined, () => undefined);
      const r = await run<{ files: number; changed: string[]; fixes: number; saved: boolean }>(COMMANDS.fixAllWorkflowNames, { confirm: true });
      assert.ok(r && r.files >= 1);
      assert.ok(
        r.changed.some((p) => p.endsWith(`integration-${process.pid}.yml`)),
        r.changed.join(','),
      );
      assert.ok(!(await vscode.workspace.openTextDocument(file)).getText().includes('GITHUB_TOKEN'));
    });

    it('extra rules from the workspace .service-hooks.json (lint.rules) add findings with fixes', async function () {
      const folder = vscode.workspace.workspaceFolders![0]!;
      const config = vscode.Uri.joinPath(folder.uri, '.service-hooks.json');
      const custom = vscode.Uri.joinPath(folder.uri, '.github', 'workflows', `custom-${process.pid}.yml`);
      await vscode.workspace.fs.writeFile(
        config,
        Buffer.from(JSON.stringify({ lint: { rules: [{ kind: 'action', from: 'acme/deploy', to: 'service/deploy' }] } })),
      );
      await vscode.workspace.fs.writeFile(custom, Buffer.from('on: push\njobs:\n  d:\n    runs-on: x\n    steps:\n      - uses: acme/deploy@v1\n'));
      try {
        const doc = await vscode.workspace.openTextDocument(custom);
        await vscode.window.showTextDocument(doc);
        const found = await until(
          (l) => vscode.languages.onDidChangeDiagnostics(l),
          () => vscode.languages.getDiagnostics(custom).find((d) => d.source === 'service-hooks' && doc.getText(d.range).includes('acme/deploy')),
          'a finding from the extra rule',
        );
        const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', custom, found.range);
        const quick = actions.find((a) => a.title.startsWith('Replace with') && a.edit);
        assert.ok(quick, 'a quick fix for the extra rule');
        await vscode.workspace.applyEdit(quick.edit!);
        assert.ok(doc.getText().includes('uses: service/deploy@v1'), doc.getText());
      } finally {
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
        await vscode.workspace.fs.delete(custom).then(undefined, () => undefined);
        await vscode.workspace.fs.delete(config).then(undefined, () => undefined);
      }
    });
  });

  it('Start Relay runs the bundled CLI as a child process; Stop Relay ends it', async function () {
    await config().update(SETTINGS.relayPort, 0, target);
    await run(COMMANDS.stopRelay); // detach from the in-process relay
    const started = await run<{ state: string; port: number }>(COMMANDS.startRelay);
    assert.ok(started, `start failed: ${JSON.stringify(lastError())}`);
    assert.equal(started.state, 'running');
    assert.ok(started.port > 0 && started.port !== relay.port);
    assert.ok(relayManager().ownsProcess);
    const health = await fetch(`http://127.0.0.1:${started.port}/healthz`);
    assert.equal(health.status, 200);
    const stopped = await run<{ result: string }>(COMMANDS.stopRelay);
    assert.equal(stopped?.result, 'stopped');
    assert.equal(relayManager().state, 'stopped');
    await assert.rejects(fetch(`http://127.0.0.1:${started.port}/healthz`));
    // back to the suite's relay
    await relayManager().attach(relay.port, relay.token);
    await config().update(SETTINGS.relayPort, relay.port, target);
  });

  it('Delete Webhook removes the webhook (confirmation skipped with { confirm: true })', async function () {
    const r = await run<{ deleted: string }>(COMMANDS.deleteWebhook, { webhookId: failingHook.id, confirm: true });
    assert.equal(r?.deleted, failingHook.id);
    assert.ok(!(await hooks()).some((h) => h.id === failingHook.id));
  });

  it('Refresh re-reads webhooks', async function () {
    assert.deepEqual(await run(COMMANDS.refresh), { refreshed: true });
    const [repo] = await children();
    assert.ok(repo);
    const ids = (await children(repo)).flatMap((n) => (n.kind === 'webhook' ? [n.webhook.id] : []));
    assert.deepEqual(ids, [relayHook.id]);
  });

  it('a network failure goes through the one error path as "network"', async function () {
    await config().update(SETTINGS.baseUrl, 'http://127.0.0.1:9', target);
    await api.commandContext.services.tokens.set('http://127.0.0.1:9', TOKEN); // the token is kept per address
    try {
      assert.equal(await run(COMMANDS.pingWebhook, { webhookId: relayHook.id }), undefined);
      const err = lastError();
      assert.ok(err && (err.kind === 'network' || err.kind === 'user'), JSON.stringify(err));
      if (err.kind === 'network') assert.match(err.message, /^Cannot reach the service at http:\/\/127\.0\.0\.1:9 /, 'names the address, and only the service');
      assert.equal(await run(COMMANDS.createSecret, { repo: REPO, name: 'X_Y', value: 'v', protected: false }), undefined);
      assert.equal(lastError()?.kind, 'network');
    } finally {
      await api.commandContext.services.tokens.clear('http://127.0.0.1:9');
      await config().update(SETTINGS.baseUrl, emulator.url, target);
    }
  });

  it('Sign Out deletes the token; the tree goes back to the Sign In welcome', async function () {
    await run(COMMANDS.signOut);
    assert.equal(await api.commandContext.extension.secrets.get(tokenKey(emulator.url)), undefined);
    assert.deepEqual(await children(), []);
    assert.equal(await run(COMMANDS.pingWebhook, { webhookId: relayHook.id }), undefined);
    const err = lastError();
    assert.equal(err?.kind, 'signedOut', 'not a rejected token');
    assert.equal(err?.message, 'You are not signed in to the service.');
    void CONTEXT;
  });
});
