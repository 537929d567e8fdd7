// The Relay view and its commands against relays this suite starts: a port held by a stranger's
// relay, switching relays, a remote relay over TLS (Connect to Relay…) forwarding to a local app.
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import * as vscode from 'vscode';
import { activated, relayView, run } from './editor';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { HOOK_SECRET, TOKEN, startApp, startEmulatorFixture, startRelayFixture, type App, type Emulator, type Relay } from './fixtures';

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

describe('Relay view and relay commands', function () {
  let api: ServiceHooksApi;
  let app: App;
  let emulator: Emulator;
  const relays: Relay[] = [];
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const { manager, rows, when } = relayView(() => api);

  before(async function () {
    api = await activated();
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

  it("Start Relay on a port a stranger's relay holds reports the failure and does not attach to it", async function () {
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

  it("the Relay view drops the old relay's rows when the port setting points at another relay", async function () {
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
    assert.equal(manager().live.size, 0, "the old relay's rows are gone");
    await manager().attach(b.port, b.token);
    const live = manager().live.newestFirst();
    assert.equal(live.length, 1);
    assert.equal(manager().port, b.port);
    assert.ok(
      live.every((d) => d.seq === 1 && seqA === 1),
      "only b's row",
    );
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
});
