// The Webhooks view as people use it (issue 12): live refresh of the rows that changed, reveal,
// error rows that act and recover by themselves, the token kept per base URL, input checks.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import { activated, run } from './editor';
import type { WebhookTreeNode } from '../../../src/core/tree';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { TOKEN, emulatorCall, startApp, startEmulatorFixture, startProxy, until, type App, type Emulator, type Proxy } from './fixtures';

const REPO = 'acme/gadgets';

describe('Webhooks view: live, acting, per-address token', function () {
  let api: ServiceHooksApi;
  let emulator: Emulator;
  let proxy: Proxy;
  let recorder: App;
  let hookId: string;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const tree = () => api.commandContext.webhooks;
  const lastError = () => api.takeLastError();

  const call = <T>(method: string, path: string, body?: unknown) => emulatorCall<T>(emulator, method, path, body);
  async function rows(node?: WebhookTreeNode): Promise<WebhookTreeNode[]> {
    return tree().getChildren(node);
  }
  async function hookNode(): Promise<WebhookTreeNode & { kind: 'webhook' }> {
    const [repo] = await rows();
    assert.ok(repo?.kind === 'repository', `a repository row, got ${JSON.stringify(repo)}`);
    const node = (await rows(repo)).find((n) => n.kind === 'webhook' && n.webhook.id === hookId);
    assert.ok(node?.kind === 'webhook', 'the webhook row');
    return node;
  }
  /** The nodes fired by onDidChangeTreeData while `action` runs. */
  async function fired(action: () => Promise<unknown>): Promise<(WebhookTreeNode | undefined)[]> {
    const seen: (WebhookTreeNode | undefined)[] = [];
    const sub = tree().onDidChangeTreeData((n) => seen.push(n ?? undefined));
    try {
      await action();
    } finally {
      sub.dispose();
    }
    return seen;
  }

  before(async function () {
    api = await activated();
    emulator = await startEmulatorFixture();
    proxy = await startProxy(emulator.url);
    recorder = await startApp();
    const hook = await call<{ id: string }>('POST', `/api/v1/repos/${REPO}/webhooks`, {
      url: `${emulator.url}/_emulator/fail/500`,
      content_type: 'json',
      events: ['push'],
    });
    hookId = hook.id;
    await config().update(SETTINGS.repositories, [REPO], target);
    await config().update(SETTINGS.baseUrl, proxy.url, target);
    assert.deepEqual(await run(COMMANDS.signIn, { token: TOKEN }), { signedIn: true, validated: true });
  });

  after(async function () {
    await run(COMMANDS.signOut);
    for (const key of [SETTINGS.baseUrl, SETTINGS.repositories]) await config().update(key, undefined, target);
    await proxy?.close();
    await recorder?.close();
    await emulator?.close();
  });

  it("a new delivery repaints only the expanded webhook's counts row, and getParent leads from a delivery to the root (what reveal walks)", async function () {
    const webhook = await hookNode();
    const [countsRow] = await rows(webhook); // expanding: the webhook's deliveries are now kept fresh
    assert.ok(countsRow?.kind === 'deliveries');
    const before = countsRow.counts.total;
    await call('POST', `/_emulator/repos/${REPO}/events`, { event: 'push' });
    await until(
      (l) => emulator.onAttempt(l),
      async () => ((await call<{ total: number }>('GET', `/api/v1/webhooks/${hookId}/deliveries`)).total > before ? true : undefined),
      'a delivery attempt',
    );
    const nodes = await fired(() => tree().loop.runNow());
    assert.deepEqual(nodes, [countsRow], 'one event, for the counts row (the same object the tree holds), not the whole tree');
    assert.ok(countsRow.counts.total > before, `counts ${JSON.stringify(countsRow.counts)}`);
    assert.deepEqual(await fired(() => tree().loop.runNow()), [], 'nothing changed: nothing repainted');
    const [delivery] = await rows(countsRow);
    assert.ok(delivery?.kind === 'delivery');
    assert.equal(tree().getParent(delivery), countsRow);
    assert.equal(tree().getParent(countsRow), webhook);
    assert.equal(tree().getParent(tree().getParent(webhook)!), undefined);
  });

  it('service down: the row names the address and retries; it recovers by itself when the service is back', async function () {
    await proxy.down();
    try {
      tree().refresh();
      const [repo] = await rows();
      const [row] = await rows(repo);
      assert.ok(row?.kind === 'message' && row.problem === 'network', JSON.stringify(row));
      assert.match(row.text, new RegExp(`Cannot reach the service at ${proxy.url.replace(/\./g, '\\.')} \\(connection refused\\)`));
      assert.equal(row.action?.command, COMMANDS.refresh);
      assert.equal(tree().getTreeItem(row).contextValue, 'message.network');
      await tree().loop.runNow();
      assert.ok(tree().loop.failureCount > 0, 'a failed tick backs off');
    } finally {
      await proxy.up();
    }
    const repoRow = (await rows())[0]!;
    const nodes = await fired(() => tree().loop.runNow());
    assert.deepEqual(nodes, [repoRow], 'the repository row repaints');
    assert.equal(tree().loop.failureCount, 0);
    assert.ok(
      (await rows(repoRow)).some((n) => n.kind === 'webhook'),
      'the webhooks are back',
    );
  });

  it('an outage during automatic refresh: rows kept and marked stale at the first failed refresh; the next good one clears it, rows and expansion kept', async function () {
    tree().refresh();
    const webhook = await hookNode();
    const [countsRow] = await rows(webhook); // expanded: its deliveries are refreshed
    assert.ok(countsRow?.kind === 'deliveries');
    assert.equal(tree().staleSince, undefined);
    await proxy.down();
    try {
      const nodes = await fired(() => tree().loop.runNow());
      assert.ok(nodes.includes(webhook), 'the first failed refresh repaints the webhook rows (stale marks)');
      assert.ok(tree().staleSince, 'the view is marked stale at once');
      assert.match(String(tree().getTreeItem(webhook).description), /stale$/);
      assert.match(String(tree().getTreeItem(countsRow).tooltip), /Stale: not refreshed since .* \(Cannot reach the service/);
      assert.equal((await rows(webhook))[0], countsRow, 'the rows stay (from the cache)');
      assert.deepEqual(await fired(() => tree().loop.runNow()), [], 'a second failure repaints nothing');
    } finally {
      await proxy.up();
    }
    const nodes = await fired(() => tree().loop.runNow());
    assert.ok(nodes.includes(webhook), 'recovered: the stale marks go');
    assert.equal(tree().staleSince, undefined);
    assert.doesNotMatch(String(tree().getTreeItem(webhook).description ?? ''), /stale/);
    assert.ok(
      tree()
        .expandedHooks()
        .some((h) => h.id === hookId),
      'still expanded',
    );
  });

  it('a rejected token is a Sign In row; signed out, commands say so with a Sign In button (no 401)', async function () {
    await api.commandContext.services.tokens.set(proxy.url, 'not-the-token');
    tree().refresh();
    const [row] = await rows((await rows())[0]);
    assert.ok(row?.kind === 'message' && row.problem === 'auth', JSON.stringify(row));
    assert.equal(row.action?.command, COMMANDS.signIn);
    await api.commandContext.services.tokens.set(proxy.url, TOKEN);
  });

  it('the token is kept for the address it was created for: another base URL gets nothing', async function () {
    await config().update(SETTINGS.baseUrl, recorder.url.replace(/\/webhook$/, ''), target);
    try {
      assert.deepEqual(await rows(), [], 'not signed in here: the Sign In welcome');
      assert.equal(await run(COMMANDS.pingWebhook, { webhookId: hookId }), undefined);
      assert.equal(lastError()?.kind, 'signedOut');
      assert.ok(
        recorder.requests.every((r) => r.headers.authorization === undefined),
        'no token was sent to the other address',
      );
    } finally {
      await config().update(SETTINGS.baseUrl, proxy.url, target);
    }
  });

  it('a malformed base URL says so (not "No repository found")', async function () {
    await config().update(SETTINGS.baseUrl, '127.0.0.1:8787', target);
    try {
      const [row] = await rows();
      assert.ok(row?.kind === 'message' && row.problem === 'config', JSON.stringify(row));
      assert.match(row.text, /write it as http:\/\/127\.0\.0\.1:8787/);
      assert.equal(await run(COMMANDS.pingWebhook, { webhookId: hookId }), undefined);
      assert.equal(lastError()?.kind, 'user');
    } finally {
      await config().update(SETTINGS.baseUrl, proxy.url, target);
    }
  });

  it('Create CI Secret: an empty value says "Enter a value"', async function () {
    assert.equal(await run(COMMANDS.createSecret, { repo: REPO, name: 'EMPTY_ONE', value: '', protected: false }), undefined);
    const err = lastError();
    assert.equal(err?.kind, 'user');
    assert.match(err.message, /Enter a value/);
  });
});
