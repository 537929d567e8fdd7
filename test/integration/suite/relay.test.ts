// The Relay view and its commands against relays this suite starts: a port held by a stranger's
// relay, switching relays, a remote relay over TLS (Connect to Relay…) forwarding to a local app.
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import * as vscode from 'vscode';
import type { RelayTreeNode } from '../../../src/core/tree';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, EXTENSION_ID, RELAY_STORAGE, SETTINGS } from '../../../src/extension/ids';
import { startTlsRelay, type TlsRelay } from './tlsRelay';
import { HOOK_SECRET, TOKEN, startApp, startEmulatorFixture, startRelayFixture, until, type App, type Emulator, type Relay } from './fixtures';

/** A delivery signed with the suite's hook secret, as the service sends it. */
async function post(relay: { port: number }, body: string): Promise<void> {
  const signature = 'sha256=' + createHmac('sha256', HOOK_SECRET).update(body).digest('hex');
  const res = await fetch(`http://127.0.0.1:${relay.port}/hooks/default`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Event': 'push', 'X-Service-Signature': signature },
    body,
  });
  assert.equal(res.status, 200, await res.text());
}

const run = <T = unknown>(id: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(id, ...args);

describe('Relay view and relay commands', function () {
  let api: ServiceHooksApi;
  let app: App;
  let emulator: Emulator;
  const relays: Relay[] = [];
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const manager = () => api.commandContext.services.relay;
  const rows = (): RelayTreeNode[] => api.commandContext.relayTree.getChildren();
  /** Resolves once `check` holds, re-checked on each change of the relay manager. */
  const when = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      if (check()) return resolve();
      const sub = manager().onDidChange(() => {
        if (!check()) return;
        sub.dispose();
        resolve();
      });
    });

  before(async function () {
    const ext = vscode.extensions.getExtension<ServiceHooksApi>(EXTENSION_ID);
    assert.ok(ext);
    api = ext.isActive ? ext.exports : await ext.activate();
    app = await startApp();
    emulator = await startEmulatorFixture();
  });

  after(async function () {
    await run(COMMANDS.stopRelay);
    for (const key of Object.values(SETTINGS)) await config().update(key, undefined, target);
    for (const r of relays) await r.close();
    await app?.close();
    await emulator?.close();
  });

  it('Start Relay on a port a stranger\'s relay holds reports the failure and does not attach to it', async function () {
    const stranger = await startRelayFixture(app.url);
    relays.push(stranger);
    await run(COMMANDS.stopRelay);
    await config().update(SETTINGS.relayPort, stranger.port, target);
    const started = await run(COMMANDS.startRelay);
    assert.equal(started, undefined, 'the command failed');
    const err = api.takeLastError();
    assert.ok(err && err.command === COMMANDS.startRelay, JSON.stringify(err));
    assert.match(err.message, new RegExp(`Port ${stranger.port} is already in use`));
    assert.equal(manager().state, 'failed');
    assert.equal(manager().connected, false);
    assert.equal(manager().ownsProcess, false);
    assert.ok(!rows().some((n) => n.kind === 'relayDelivery'), 'no rows of the stranger');
    const state = rows().find((n) => n.kind === 'relayState');
    assert.ok(state && state.kind === 'relayState' && state.state === 'failed');
    assert.match(String(state.detail), /already in use/);
  });

  it('the Relay view drops the old relay\'s rows when the port setting points at another relay', async function () {
    const a = await startRelayFixture(app.url);
    const b = await startRelayFixture(app.url);
    relays.push(a, b);
    for (const r of [a, b]) await post(r, `{"relay":${r.port}}`);
    await config().update(SETTINGS.relayPort, a.port, target);
    await manager().attach(a.port, a.token);
    assert.equal(manager().live.size, 1);
    const seqA = manager().live.newestFirst()[0]!.seq;
    // Another relay on another port: the rows of `a` go at once, whatever `b` turns out to be.
    await config().update(SETTINGS.relayPort, b.port, target);
    await when(() => manager().port !== a.port);
    assert.equal(manager().live.size, 0, 'the old relay\'s rows are gone');
    await manager().attach(b.port, b.token);
    const live = manager().live.newestFirst();
    assert.equal(live.length, 1);
    assert.equal(manager().port, b.port);
    assert.ok(live.every((d) => d.seq === 1 && seqA === 1), 'only b\'s row');
    const detail = await manager().getDelivery(live[0]!.seq);
    assert.equal(Buffer.from(detail.bodyBase64, 'base64').toString(), `{"relay":${b.port}}`);
  });

  it('Start Relay and Add Webhook share a generated secret: a ping of the new webhook arrives verified', async function () {
    await run(COMMANDS.stopRelay);
    await config().update(SETTINGS.baseUrl, emulator.url, target);
    await config().update(SETTINGS.repositories, ['acme/widgets'], target);
    await config().update(SETTINGS.relayPort, 0, target);
    await config().update(SETTINGS.relayForwardUrl, app.url, target);
    assert.ok(await run(COMMANDS.signIn, { token: TOKEN }));
    const started = await run<{ port: number; result: string }>(COMMANDS.startRelay);
    assert.ok(started, JSON.stringify(api.takeLastError()));
    assert.equal(started.result, 'started');
    const created = await run<{ webhook: { id: string }; secretShared: boolean }>(COMMANDS.addWebhook, {
      repo: 'acme/widgets',
      url: `http://127.0.0.1:${started.port}/hooks/default`,
      events: ['push'],
      secret: 'generate',
    });
    assert.ok(created?.secretShared, JSON.stringify(created ?? api.takeLastError()));
    const before = app.requests.length;
    assert.ok(await run(COMMANDS.pingWebhook, { webhookId: created.webhook.id }));
    const forwarded = await app.next(before); // the relay forwards only what it accepted
    await when(() => manager().live.size > 0 && manager().status?.channels.some((c) => c.verified > 0) === true);
    const [row] = manager().live.newestFirst();
    assert.equal(row!.verification, 'verified', row!.reason);
    assert.ok(forwarded.headers['x-service-signature']);
    const stopped = await run<{ result: string }>(COMMANDS.stopRelay);
    assert.equal(stopped?.result, 'stopped');
    await run(COMMANDS.signOut);
  });

  describe('a team relay over TLS (Connect to Relay…)', function () {
    const REPO = 'acme/widgets';
    let tls: TlsRelay;
    let forwarding: { channel: string; ingressUrl: string; webhookId: string };
    const emulatorApi = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const res = await fetch(emulator.url + path, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
      return (text ? JSON.parse(text) : undefined) as T;
    };
    const push = () => emulatorApi('POST', `/_emulator/repos/${REPO}/events`, { event: 'push' });
    /** The app's requests that came through the channel, by X-Service-Delivery. */
    const forwardedIds = () => app.requests.map((r) => String(r.headers['x-service-delivery'] ?? '')).filter(Boolean);

    before(async function () {
      await run(COMMANDS.stopRelay);
      await config().update(SETTINGS.baseUrl, emulator.url, target);
      await config().update(SETTINGS.repositories, [REPO], target);
      await config().update(SETTINGS.relayForwardUrl, undefined, target);
      assert.ok(await run(COMMANDS.signIn, { token: TOKEN }));
      tls = await startTlsRelay(api.commandContext.extension.extensionPath);
    });
    after(async function () {
      await run(COMMANDS.disconnectRelay);
      await run(COMMANDS.signOut);
      await tls?.close();
    });

    it('Forward Webhooks to Local App without a relay explains what is needed', async function () {
      assert.deepEqual(await run(COMMANDS.forwardToLocalApp, { repo: REPO, events: ['push'], to: app.url }), { needsRelay: true });
    });

    it('Connect to Relay keeps the token in SecretStorage; Forward Webhooks to Local App creates the channel and the webhook, and the emulator\'s deliveries reach the app byte-exact over TLS', async function () {
      const connected = await run<{ remote: string; state: string }>(COMMANDS.connectRelay, { address: tls.url, token: tls.token });
      assert.ok(connected, JSON.stringify(api.takeLastError()));
      assert.equal(connected.remote, `127.0.0.1:${tls.port}`);
      assert.equal(await api.commandContext.extension.secrets.get(RELAY_STORAGE.remoteTokenPrefix + tls.url), tls.token);
      assert.ok(!JSON.stringify(config().get('serviceHooks')).includes(tls.token), 'the token is in no setting');

      const r = await run<typeof forwarding>(COMMANDS.forwardToLocalApp, { repo: REPO, events: ['push'], to: app.url });
      assert.ok(r, JSON.stringify(api.takeLastError()));
      forwarding = r;
      assert.ok(forwarding.ingressUrl.startsWith(`https://127.0.0.1:${tls.port}/hooks/`), forwarding.ingressUrl);
      const hooks = await emulatorApi<{ id: string; url: string; secret_set: boolean }[]>('GET', `/api/v1/repos/${REPO}/webhooks`);
      const hook = hooks.find((h) => h.id === forwarding.webhookId);
      assert.ok(hook && hook.url === forwarding.ingressUrl && hook.secret_set, JSON.stringify(hooks));
      assert.equal(manager().statusBarText, `$(radio-tower) 127.0.0.1:${tls.port} ⇄ ${new URL(app.url).host}`);
      assert.ok(rows().some((n) => n.kind === 'relayForwarding' && n.session.channel === forwarding.channel));

      const before = app.requests.length;
      await push();
      const got = await app.next(before);
      await when(() => manager().live.newestFirst().some((d) => d.channel === forwarding.channel));
      const row = manager().live.newestFirst().find((d) => d.channel === forwarding.channel)!;
      assert.equal(row.verification, 'verified', 'the channel verifies with the generated secret');
      const journaled = await manager().getDelivery(row.seq);
      assert.ok(Buffer.from(journaled.bodyBase64, 'base64').equals(got.body), 'byte-exact');
      assert.equal(got.headers['x-service-signature'], journaled.headers['x-service-signature']);
    });

    it('a cut connection (the relay killed and restarted) and an editor restart resume with no gap', async function () {
      const start = app.requests.length;
      await tls.restart(); // kill -9: the subscription drops and reconnects by itself
      await when(() => manager().state === 'running');
      await push();
      await app.next(start);
      // The editor closes; deliveries arrive meanwhile; the next activation resumes from the stored seq.
      const journal = async () => (await fetch(`${tls.url}/api/deliveries?channel=${forwarding.channel}&limit=100`, { headers: { authorization: `Bearer ${tls.token}` } })).json() as Promise<{ deliveries: { deliveryId?: string; seq: number }[] }>;
      const n0 = (await journal()).deliveries.length;
      await manager().closeConnection();
      assert.equal(manager().connected, false);
      await push();
      await push();
      const listed = await until((l) => emulator.onAttempt(l), async () => {
        const j = await journal();
        return j.deliveries.length >= n0 + 2 ? j : undefined;
      }, 'both deliveries in the relay journal');
      assert.equal(app.requests.length, start + 1, 'nothing forwarded while the editor is closed');
      assert.ok(await manager().restoreRemote());
      await app.next(start + 2);
      const expected = listed.deliveries.map((d) => d.deliveryId!).reverse();
      assert.deepEqual(forwardedIds().slice(-expected.length), expected, 'every journaled delivery, once, in seq order');
    });

    it('Stop Forwarding deletes the webhook and the channel; Disconnect from Relay forgets the token', async function () {
      const stopped = await run<{ deleted: boolean }>(COMMANDS.stopForwarding, { channel: forwarding.channel, deleteBoth: true });
      assert.ok(stopped?.deleted, JSON.stringify(api.takeLastError()));
      const hooks = await emulatorApi<{ id: string }[]>('GET', `/api/v1/repos/${REPO}/webhooks`);
      assert.ok(!hooks.some((h) => h.id === forwarding.webhookId));
      const ingress = await fetch(forwarding.ingressUrl, { method: 'POST', body: '{}' });
      assert.equal(ingress.status, 404, 'the channel is gone');
      assert.deepEqual(await run(COMMANDS.disconnectRelay), { disconnected: true });
      assert.equal(await api.commandContext.extension.secrets.get(RELAY_STORAGE.remoteTokenPrefix + tls.url), undefined);
      assert.equal(manager().remoteLabel, undefined);
    });
  });
});
