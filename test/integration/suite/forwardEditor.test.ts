// The editor side of forwarding as a new user meets it (issue 27 §2, §3): Connect with the admin
// token forwards only this editor's set-ups (each delivery reaches the app once, also when the relay
// forwards there itself), a reload restores the connection and its set-ups by themselves, a
// generated secret verifies, a channel token forwards and replays its own channel, and a deleted
// channel stops the connection with the reason instead of "Connecting…" forever.
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RelayApi } from '../../../relay/client';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { activated, relayView, run } from './editor';
import { emulatorCall, HOOK_SECRET, startApp, startEmulatorFixture, startRelayFixture, TOKEN, type App, type Emulator, type Relay } from './fixtures';

const REPO = 'acme/widgets';
const CHANNEL_SECRET = 'forward-editor-channel-secret-0123456789';

async function post(relay: { port: number }, channel: string, secret: string, body: string): Promise<number> {
  const signature = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  const res = await fetch(`http://127.0.0.1:${relay.port}/hooks/${channel}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Event': 'push', 'X-Service-Signature': signature },
    body,
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return (JSON.parse(text) as { seq: number }).seq;
}

const bodies = (app: App) => app.requests.map((r) => r.body.toString());
const counts = (list: string[]) => list.reduce((m, b) => m.set(b, (m.get(b) ?? 0) + 1), new Map<string, number>());

describe('Forwarding from the editor: every way in, each delivery once', function () {
  let api: ServiceHooksApi;
  let app: App; // the relay's own --forward target, and the forward URL setting (the demo's set-up)
  let mine: App; // the app of this editor's forward set-up
  let emulator: Emulator;
  let relay: Relay;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const { manager, rows, when } = relayView(() => api);
  const base = () => `http://127.0.0.1:${relay.port}`;
  const push = () => emulatorCall(emulator, 'POST', `/_emulator/repos/${REPO}/events`, { event: 'push' });
  let setup: { channel: string; webhookId: string };
  let tokenFile: string;
  let ownToken: string | undefined;

  before(async function () {
    api = await activated();
    app = await startApp();
    mine = await startApp();
    emulator = await startEmulatorFixture();
    relay = await startRelayFixture(app.url);
    await run(COMMANDS.stopRelay);
    await config().update(SETTINGS.baseUrl, emulator.url, target);
    await config().update(SETTINGS.repositories, [REPO], target);
    await config().update(SETTINGS.relayForwardUrl, app.url, target);
    assert.ok(await run(COMMANDS.signIn, { token: TOKEN }));
    // The demo's case: the relay runs on serviceHooks.relay.port with its token in the editor's data folder.
    tokenFile = join(api.relayDataDir, 'token');
    try {
      ownToken = readFileSync(tokenFile, 'utf8');
    } catch {
      ownToken = undefined;
    }
    mkdirSync(api.relayDataDir, { recursive: true });
    writeFileSync(tokenFile, relay.token, { mode: 0o600 });
    await config().update(SETTINGS.relayPort, relay.port, target);
  });
  after(async function () {
    await run(COMMANDS.disconnectRelay, { force: true });
    await run(COMMANDS.signOut);
    if (ownToken !== undefined) writeFileSync(tokenFile, ownToken, { mode: 0o600 });
    else rmSync(tokenFile, { force: true });
    for (const key of Object.values(SETTINGS)) await config().update(key, undefined, target);
    await relay?.close();
    await emulator?.close();
    await app?.close();
    await mine?.close();
  });

  it('Forward with the local relay on the port works (its token file), and Connect with the admin token then forwards only the set-ups: each delivery once', async function () {
    await run(COMMANDS.disconnectRelay, { force: true });
    await manager().probe({ force: true });
    await when(() => manager().connected && manager().port === relay.port);
    const r = await run<{ channel: string; webhookId: string }>(COMMANDS.forwardToLocalApp, { repo: REPO, events: ['push'], to: mine.url });
    assert.ok(r, JSON.stringify(api.takeLastError()));
    setup = r;
    assert.ok(rows().some((n) => n.kind === 'relayForwarding' && n.session.channel === setup.channel));

    const connected = await run<{ forwardTargets: string[] }>(COMMANDS.connectRelay, { address: base(), token: relay.token });
    assert.ok(connected, JSON.stringify(api.takeLastError()));
    assert.deepEqual(connected.forwardTargets, [mine.url], "the set-up's app only: not the forward URL setting for every channel");
    // Three deliveries on `default`: the relay's own --forward posts them to `app`.
    for (let i = 0; i < 3; i++) await post(relay, 'default', HOOK_SECRET, `{"once":${i}}`);
    await app.next(2);
    // A push through the set-up's channel comes after them in seq order: once `mine` has it, the
    // editor has handled every earlier delivery (it takes them one at a time, in order).
    const before = mine.requests.length;
    await push();
    await mine.next(before);
    assert.deepEqual([...counts(bodies(app)).values()], [1, 1, 1], `the relay's app got each delivery once: ${JSON.stringify(bodies(app))}`);
    assert.equal(mine.requests.length, before + 1, "the set-up's app got the push once");
    // Copy Signing Secret (the set-up row's button): the secret the app verifies that push with.
    const copied = await run<{ channel: string }>(COMMANDS.copySigningSecret, { kind: 'relayForwarding', session: { channel: setup.channel } });
    assert.ok(copied, JSON.stringify(api.takeLastError()));
    const secret = await vscode.env.clipboard.readText();
    const got = mine.requests[before]!;
    assert.equal(
      got.headers['x-service-signature'],
      'sha256=' + createHmac('sha256', secret).update(got.body).digest('hex'),
      'the copied secret verifies the delivery',
    );
  });

  it('after a reload (connection closed, activation restores) the connection and the set-up come back by themselves; each delivery arrives once', async function () {
    const start = mine.requests.length;
    await manager().closeConnection(); // the extension host goes away
    await push();
    await push();
    // The new activation: the Relay view probes the port while the remembered connection is restored.
    const probing = manager().probe({ force: true });
    await manager().restore();
    await probing;
    assert.equal(manager().remoteLabel, `127.0.0.1:${relay.port}`, 'the connection, not the local relay');
    const state = rows().find((n) => n.kind === 'relayState');
    assert.ok(state?.kind === 'relayState' && state.state === 'running' && state.remote === `127.0.0.1:${relay.port}`, JSON.stringify(state));
    await mine.next(start + 1);
    await push();
    await mine.next(start + 2);
    const ids = mine.requests.slice(start).map((q) => String(q.headers['x-service-delivery']));
    assert.equal(ids.length, 3, `three deliveries: ${JSON.stringify(ids)}`);
    assert.equal(new Set(ids).size, 3, 'none twice');
  });

  it('Add Webhook → Generate a strong secret to a new channel of the connected relay: the ping arrives verified; to `default` it says why it cannot', async function () {
    const created = await run<{ webhook: { id: string }; secretHow: string }>(COMMANDS.addWebhook, {
      repo: REPO,
      url: `${base()}/hooks/gen-new`,
      events: ['push'],
      secret: 'generate',
    });
    assert.ok(created, JSON.stringify(api.takeLastError()));
    assert.equal(created.secretHow, 'created');
    assert.ok(await run(COMMANDS.pingWebhook, { webhookId: created.webhook.id }));
    await when(() =>
      manager()
        .live.newestFirst()
        .some((d) => d.channel === 'gen-new'),
    );
    const row = manager()
      .live.newestFirst()
      .find((d) => d.channel === 'gen-new')!;
    assert.equal(row.verification, 'verified', row.reason);
    assert.equal(await run(COMMANDS.addWebhook, { repo: REPO, url: `${base()}/hooks/default`, events: ['push'], secret: 'generate' }), undefined);
    assert.match(String(api.takeLastError()?.message), /secrets the editor does not hold/);
  });

  it('the admin token can forward a channel the relay already has (picked, no webhook created): only that channel, once', async function () {
    const admin = new RelayApi({ baseUrl: base(), token: relay.token });
    await admin.createChannel({ name: 'picked', secrets: [CHANNEL_SECRET] });
    const other = await startApp();
    try {
      const r = await run<{ channel: string }>(COMMANDS.forwardToLocalApp, { channel: 'picked', to: other.url });
      assert.ok(r, JSON.stringify(api.takeLastError()));
      assert.ok(
        manager()
          .sessions()
          .some((f) => f.channel === 'picked' && f.webhookId === '' && f.to === other.url),
      );
      await post(relay, 'picked', CHANNEL_SECRET, '{"picked":1}');
      assert.equal((await other.next(0)).body.toString(), '{"picked":1}');
      assert.ok(await run(COMMANDS.stopForwarding, { channel: 'picked' }));
    } finally {
      await other.close();
    }
  });

  it('a channel token: Forward asks only the local URL, Replay sends to that app, and a deleted channel stops with 401 and Connect to Relay…', async function () {
    const admin = new RelayApi({ baseUrl: base(), token: relay.token });
    const channel = await admin.createChannel({ name: 'team-alice', secrets: [CHANNEL_SECRET] });
    const alice = await startApp();
    try {
      assert.ok(await run(COMMANDS.connectRelay, { address: base(), token: channel.token }), JSON.stringify(api.takeLastError()));
      assert.deepEqual(manager().scope, { kind: 'channel', channel: 'team-alice' });
      const r = await run<{ channel: string }>(COMMANDS.forwardToLocalApp, { to: alice.url });
      assert.ok(r, JSON.stringify(api.takeLastError()));
      assert.equal(r.channel, 'team-alice');
      const seq = await post(relay, 'team-alice', CHANNEL_SECRET, '{"alice":1}');
      const got = await alice.next(0);
      assert.equal(got.body.toString(), '{"alice":1}');
      const replayed = await run<{ to: string; attempts: { ok: boolean }[] }>(COMMANDS.replayDelivery, { seq });
      assert.ok(replayed, JSON.stringify(api.takeLastError()));
      assert.equal(replayed.to, alice.url, "to the set-up's app, not the forward URL setting");
      assert.equal((await alice.next(1)).body.toString(), '{"alice":1}');

      await admin.deleteChannel('team-alice');
      await when(() => manager().state === 'failed');
      assert.match(String(manager().detail), /refused the token \(HTTP 40[13]\)/);
      assert.ok(!String(manager().statusBarText).includes('loading~spin'), `status bar: ${manager().statusBarText}`);
    } finally {
      await alice.close();
    }
  });

  it('after Disconnect the local relay on the port comes back by itself; Start Relay uses it instead of failing; Connect remembers the address', async function () {
    assert.ok(await run(COMMANDS.disconnectRelay, { force: true }));
    await when(() => manager().connected && manager().port === relay.port);
    assert.equal(manager().lastAddress, base(), 'the address is offered again after Disconnect');
    assert.deepEqual(await run(COMMANDS.stopRelay), { result: 'disconnected' }, 'a relay not started here is only let go');
    assert.equal(manager().connected, false);
    const started = await run<{ result: string }>(COMMANDS.startRelay);
    assert.ok(started, JSON.stringify(api.takeLastError()));
    assert.equal(started.result, 'attached', 'no second relay on a port (and data folder) in use');
    assert.equal(manager().ownsProcess, false);
    assert.equal(manager().port, relay.port);
  });
});
