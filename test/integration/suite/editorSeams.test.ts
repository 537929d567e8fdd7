// Pins issue 36 items 14, 15 and 18 in the editor: Retry Delivery on a row the app refused replays
// it from the relay (the service counts it delivered) and the row turns ✓; Retry All Failed counts
// those replays apart instead of "could not be retried"; Retry on a row the relay rejected, after
// the webhook's secret was fixed at the service, says the service's retry resends the old
// signature and Replay Re-signed reaches the app signed with the new one; Add Webhook with a channel
// token refuses a secret the channel does not verify, before creating anything; while the relay
// reconnects, the rows stay, marked stale. Item 17: Send Sample Event… reaches an https relay the
// editor trusts through NODE_EXTRA_CA_CERTS, and says the CA hint for one it does not. Item 16:
// Rotate Webhook Secret… rejects nothing at the relay or at a verifying app during a burst.
import { strict as assert } from 'node:assert';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RelayApi } from '../../../relay/client';
import { startRelay } from '../../../relay/server';
import type { CreatedChannel } from '../../../src/core/relay/protocol';
import type { WebhookTreeNode } from '../../../src/core/tree';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { activated, relayView, run } from './editor';
import { makeTestCerts } from '../../../scripts/lib/test-certs.mjs';
import { HOOK_SECRET, TOKEN, emulatorCall, startEmulatorFixture, type Emulator } from './fixtures';
import { startTlsRelay, type TlsRelay } from './tlsRelay';

const REPO = 'acme/seams';
const BOB_SECRET = 'bob-channel-secret-0123456789';

/** A local app whose answer the test sets (`status`, or `answer` per request); it resolves waiters on each request. */
async function startStatusApp(answer?: (req: { headers: IncomingMessage['headers']; body: Buffer }) => number) {
  const requests: { headers: IncomingMessage['headers']; body: Buffer; answered: number }[] = [];
  const waiters: (() => void)[] = [];
  const app = { status: 200, requests, url: '', next: (_n: number): Promise<void> => Promise.resolve(), close: (): Promise<void> => Promise.resolve() };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { headers: req.headers, body: Buffer.concat(chunks) };
      const status = answer ? answer(got) : app.status;
      requests.push({ ...got, answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  app.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  /** Resolves once the app has had `n` requests. */
  app.next = async (n: number) => {
    while (requests.length < n) await new Promise<void>((r) => waiters.push(r));
  };
  app.close = () => new Promise<void>((r) => server.close(() => r()));
  return app;
}

describe('the editor where two features meet (issue 36 items 14, 15, 18, 19)', function () {
  let api: ServiceHooksApi;
  let emulator: Emulator;
  let app: Awaited<ReturnType<typeof startStatusApp>>;
  let relay: { port: number; token: string; close(): Promise<void> };
  let bob: CreatedChannel;
  let pushHook: string;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const { manager, when } = relayView(() => api);
  const tree = () => api.commandContext.webhooks;
  const children = (node?: WebhookTreeNode) => tree().getChildren(node);
  const fire = (event: string) => emulatorCall(emulator, 'POST', `/_emulator/repos/${REPO}/events`, { event });
  async function webhookNode(id: string): Promise<WebhookTreeNode & { kind: 'webhook' }> {
    const [repo] = await children();
    const node = (await children(repo)).find((n) => n.kind === 'webhook' && n.webhook.id === id);
    assert.ok(node && node.kind === 'webhook', `webhook ${id} in the tree`);
    return node;
  }
  /** The counts row and the delivery rows of a webhook (`fresh`: read again first). */
  async function deliveriesOf(id: string, fresh = true) {
    if (fresh) tree().refreshDeliveries(id);
    const [counts] = await children(await webhookNode(id));
    assert.ok(counts && counts.kind === 'deliveries', JSON.stringify(counts));
    const rows = (await children(counts)).filter((n): n is WebhookTreeNode & { kind: 'delivery' } => n.kind === 'delivery');
    return { counts, rows, label: String(tree().getTreeItem(counts).label) };
  }
  /** The newest live row of channel bob with `event`, once `check` holds for it. */
  const liveRow = (event: string, check: (d: ReturnType<ReturnType<typeof manager>['live']['newestFirst']>[number]) => boolean) =>
    when(() =>
      manager()
        .live.newestFirst()
        .some((d) => d.channel === 'bob' && d.event === event && check(d)),
    );
  const addHook = async (events: string[], secret: string) =>
    (
      await emulatorCall<{ id: string }>(emulator, 'POST', `/api/v1/repos/${REPO}/webhooks`, {
        url: bob.ingressUrl,
        content_type: 'json',
        events,
        secret,
      })
    ).id;

  before(async function () {
    api = await activated();
    emulator = await startEmulatorFixture({ deliveriesEndpoint: false });
    app = await startStatusApp();
    await run(COMMANDS.stopRelay);
    await run(COMMANDS.disconnectRelay, { force: true });
    const started = (await startRelay({ port: 0, host: '127.0.0.1', dataDir: mkdtempSync(join(tmpdir(), 'sh-seams-')), secrets: [HOOK_SECRET] } as Parameters<
      typeof startRelay
    >[0])) as unknown as { port: number; token: string; close(): Promise<void> };
    relay = started;
    const base = `http://127.0.0.1:${relay.port}`;
    bob = await new RelayApi({ baseUrl: base, token: relay.token }).createChannel({ name: 'bob', secrets: [BOB_SECRET] });
    await config().update(SETTINGS.baseUrl, emulator.url, target);
    await config().update(SETTINGS.repositories, [REPO], target);
    await config().update(SETTINGS.relayForwardUrl, app.url, target); // the channel token's deliveries go to the app
    assert.ok(await run(COMMANDS.signIn, { token: TOKEN }));
    const connected = await run(COMMANDS.connectRelay, { address: base, token: bob.token });
    assert.ok(connected, JSON.stringify(api.takeLastError()));
    pushHook = await addHook(['push'], BOB_SECRET);
    tree().refresh();
  });
  after(async function () {
    await run(COMMANDS.disconnectRelay, { force: true });
    await run(COMMANDS.signOut);
    for (const key of Object.values(SETTINGS)) await config().update(key, undefined, target);
    await relay?.close().catch(() => undefined);
    await emulator?.close();
    await app?.close();
  });

  it('Retry Delivery on a row the app refused (✗ 400) replays it from the relay, and the row turns ✓', async function () {
    app.status = 400;
    await fire('push');
    await liveRow('push', (d) => d.forward.some((f) => f.status === 'failed' && f.lastStatus === 400));
    const { rows, label } = await deliveriesOf(pushHook);
    assert.equal(label, 'Deliveries 1 · ✓ 0 · ✗ 1');
    const row = rows[0]!;
    app.status = 200;
    const had = app.requests.length;
    const r = await run<{ route: string; attempts: { ok?: boolean; status?: number }[] }>(COMMANDS.retryDelivery, row);
    assert.ok(r, `Retry Delivery failed: ${JSON.stringify(api.takeLastError())}`);
    assert.equal(r.route, 'replay', 'replayed from the relay, not retried at the service (which counts it delivered)');
    assert.equal(r.attempts.at(-1)?.status, 200);
    await app.next(had + 1);
    // The editor reports the replay to the relay: the row follows it.
    await liveRow('push', (d) => d.seq === row.delivery.seq && d.forward.some((f) => f.status === 'ok'));
    assert.equal((await deliveriesOf(pushHook)).label, 'Deliveries 1 · ✓ 1 · ✗ 0');
  });

  it('Retry All Failed replays what the app refused and counts it apart: nothing "could not be retried"', async function () {
    app.status = 400;
    const seen = manager().live.lastSeq;
    await fire('push');
    await liveRow('push', (d) => d.seq > seen && d.forward.some((f) => f.status === 'failed'));
    app.status = 200;
    type Outcome = { retried: number; replayed: number; replayRefused: number; needResign: number; errors: string[] };
    const r = await run<Outcome>(COMMANDS.retryAllFailed, { webhookId: pushHook, repo: REPO, confirm: true });
    assert.ok(r, JSON.stringify(api.takeLastError()));
    assert.deepEqual(
      { retried: r.retried, replayed: r.replayed, replayRefused: r.replayRefused, needResign: r.needResign, errors: r.errors },
      { retried: 0, replayed: 1, replayRefused: 0, needResign: 0, errors: [] },
    );
  });

  it("Retry on a row the relay rejected, after the webhook's secret is fixed at the service, says so; Replay Re-signed reaches the app signed with the new secret", async function () {
    const issueHook = await addHook(['issue'], 'the-wrong-secret');
    tree().refresh();
    await fire('issue');
    await liveRow('issue', (d) => d.verification === 'rejected');
    // The webhook's secret fixed at the service: its retries still carry the first signature.
    await emulatorCall(emulator, 'PATCH', `/api/v1/repos/${REPO}/webhooks/${issueHook}`, { secret: BOB_SECRET });
    const { rows } = await deliveriesOf(issueHook);
    const row = rows[0]!;
    const r = await run<{ route: string; seq: number }>(COMMANDS.retryDelivery, row);
    assert.ok(r, JSON.stringify(api.takeLastError()));
    assert.equal(r.route, 'resign', 'not retried at the service, whose retry resends the old signature: Replay Re-signed is offered');
    const had = app.requests.length;
    const replayed = await run<{ resigned: boolean }>(COMMANDS.replayDelivery, { seq: r.seq, resignSecret: BOB_SECRET });
    assert.ok(replayed?.resigned, JSON.stringify(api.takeLastError()));
    await app.next(had + 1);
    const got = app.requests[had]!;
    assert.equal(
      got.headers['x-service-signature'],
      'sha256=' + createHmac('sha256', BOB_SECRET).update(got.body).digest('hex'),
      'signed with the fixed secret',
    );
    await liveRow('issue', (d) => d.seq === r.seq && d.forward.some((f) => f.status === 'ok'));
    assert.equal((await deliveriesOf(issueHook)).label, 'Deliveries 1 · ✓ 1 · ✗ 0', 'the re-signed replay reached the app');
  });

  it('Add Webhook with a channel token checks a typed secret against the channel before creating the webhook; Generate is known not to verify there', async function () {
    const listed = async () => (await emulatorCall<unknown[]>(emulator, 'GET', `/api/v1/repos/${REPO}/webhooks`)).length;
    const before = await listed();
    const wrong = await run(COMMANDS.addWebhook, { repo: REPO, url: bob.ingressUrl, events: ['release'], secret: 'not-the-channel-secret' });
    assert.equal(wrong, undefined, 'refused');
    assert.match(String((api.takeLastError() as { message?: string } | undefined)?.message), /does not verify at relay channel bob/);
    assert.equal(await listed(), before, 'no webhook was created with a secret every delivery of which would be rejected');
    assert.equal(await run(COMMANDS.addWebhook, { repo: REPO, url: bob.ingressUrl, events: ['release'], secret: 'none' }), undefined, 'no secret: refused too');
    assert.match(
      String((api.takeLastError() as { message?: string } | undefined)?.message),
      /channel bob verifies signatures: an unsigned test ping was rejected/,
    );
    assert.equal(await listed(), before);
    const right = await run<{ webhook: { id: string } }>(COMMANDS.addWebhook, { repo: REPO, url: bob.ingressUrl, events: ['release'], secret: BOB_SECRET });
    assert.ok(right?.webhook, JSON.stringify(api.takeLastError()));
    assert.equal(await listed(), before + 1);
    // Asked before the secret step: a channel token cannot give the channel a generated secret.
    assert.match(String(await manager().generateProblem(bob.ingressUrl)), /channel token cannot add a secret to channel bob/);
  });

  it('while the relay reconnects, the rows stay, marked stale (not "Deliveries 0" and "connect to the relay")', async function () {
    const shown = await deliveriesOf(pushHook);
    assert.equal(shown.label, 'Deliveries 2 · ✓ 2 · ✗ 0');
    await relay.close();
    await when(() => manager().state === 'connecting');
    await tree().tick();
    const after = await deliveriesOf(pushHook, false);
    assert.equal(after.label, 'Deliveries 2 · ✓ 2 · ✗ 0', 'the rows read before are kept');
    assert.match(String(tree().getTreeItem(after.counts).description), /stale/);
    assert.equal(after.rows.length, shown.rows.length);
  });
});

describe('Send Sample Event… to an https URL (issue 36 item 17)', function () {
  let api: ServiceHooksApi;
  let tls: TlsRelay;
  let untrusted: Server;
  let untrustedUrl: string;

  before(async function () {
    api = await activated();
    tls = await startTlsRelay(api.commandContext.extension.extensionPath);
    // A server whose certificate a CA nobody here trusts signed: its cause must say how to trust it.
    const certs = makeTestCerts(mkdtempSync(join(tmpdir(), 'sh-untrusted-')));
    untrusted = createHttpsServer({ cert: readFileSync(certs.serverCert), key: readFileSync(certs.serverKey) }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => untrusted.listen(0, '127.0.0.1', r));
    untrustedUrl = `https://127.0.0.1:${(untrusted.address() as AddressInfo).port}/hook`;
  });
  after(async function () {
    await tls?.close();
    await new Promise((r) => untrusted?.close(r));
  });

  it('reaches an https relay whose CA the editor trusts through NODE_EXTRA_CA_CERTS (as the WebSocket does), and says the CA hint for one it does not', async function () {
    assert.ok(process.env.NODE_EXTRA_CA_CERTS, 'the suite runs with NODE_EXTRA_CA_CERTS');
    const sent = await run<{ status: number }>(COMMANDS.sendSampleEvent, { url: `${tls.url}/hooks/default`, event: 'push', secret: '' });
    assert.ok(sent, `not sent: ${JSON.stringify(api.takeLastError())}`);
    assert.equal(typeof sent.status, 'number', 'the relay answered');
    assert.equal(await run(COMMANDS.sendSampleEvent, { url: untrustedUrl, event: 'push', secret: '' }), undefined);
    const message = String((api.takeLastError() as { message?: string } | undefined)?.message);
    assert.match(message, /not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\).*NODE_EXTRA_CA_CERTS/, message);
  });
});

describe('Rotate Webhook Secret… with an app that verifies signatures (issue 36 item 16)', function () {
  let api: ServiceHooksApi;
  let emulator: Emulator;
  let relay: { port: number; token: string; close(): Promise<void> };
  let admin: RelayApi;
  /** The app verifies each delivery with the secrets it has been given: 401 for any other. */
  const secrets: string[] = [];
  let app: Awaited<ReturnType<typeof startStatusApp>>;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;

  before(async function () {
    api = await activated();
    emulator = await startEmulatorFixture({ deliveriesEndpoint: false });
    app = await startStatusApp((req) =>
      secrets.some((s) => req.headers['x-service-signature'] === 'sha256=' + createHmac('sha256', s).update(req.body).digest('hex')) ? 200 : 401,
    );
    const dataDir = mkdtempSync(join(tmpdir(), 'sh-rotate-'));
    relay = (await startRelay({ port: 0, host: '127.0.0.1', dataDir, secrets: [HOOK_SECRET] } as Parameters<typeof startRelay>[0])) as unknown as typeof relay;
    const base = `http://127.0.0.1:${relay.port}`;
    admin = new RelayApi({ baseUrl: base, token: relay.token });
    await config().update(SETTINGS.baseUrl, emulator.url, target);
    await config().update(SETTINGS.repositories, [REPO], target);
    assert.ok(await run(COMMANDS.signIn, { token: TOKEN }));
    assert.ok(await run(COMMANDS.connectRelay, { address: base, token: relay.token }), JSON.stringify(api.takeLastError()));
  });
  after(async function () {
    await run(COMMANDS.disconnectRelay, { force: true });
    await run(COMMANDS.signOut);
    for (const key of Object.values(SETTINGS)) await config().update(key, undefined, target);
    await relay?.close();
    await emulator?.close();
    await app?.close();
  });

  it('follows the CLI order: the relay accepts both, the app gets the new secret, then the service switches, then the old one goes: 0 rejected at the relay and at the app during a burst', async function () {
    // The editor's own set-up: a channel and a webhook, each delivery forwarded to the app.
    const setup = await run<{ channel: string; webhookId: string }>(COMMANDS.forwardToLocalApp, { repo: REPO, events: ['issue'], to: app.url });
    assert.ok(setup, JSON.stringify(api.takeLastError()));
    const hook = setup.webhookId;
    const copySetupSecret = async () => {
      assert.ok(await run(COMMANDS.copySigningSecret, { kind: 'relayForwarding', session: { channel: setup.channel } }), JSON.stringify(api.takeLastError()));
      return vscode.env.clipboard.readText();
    };
    secrets.splice(0, secrets.length, await copySetupSecret()); // the app verifies with the set-up's secret
    let sent = 0;
    /** A burst of deliveries, each arrived at the app before the next step. */
    const burst = async (n: number) => {
      for (let i = 0; i < n; i++) await emulatorCall(emulator, 'POST', `/_emulator/repos/${REPO}/events`, { event: 'issue' });
      sent += n;
      await app.next(sent);
    };
    await burst(3);
    await vscode.env.clipboard.writeText('');
    const offered = await run<{ channel: string; waitingFor?: string }>(COMMANDS.rotateWebhookSecret, { webhookId: hook, copy: true });
    assert.ok(offered, JSON.stringify(api.takeLastError()));
    await burst(3);
    const refusedByApp = () => app.requests.map((r) => r.answered).filter((st) => st !== 200);
    assert.deepEqual(refusedByApp(), [], 'the service still signs with the old secret until the app has the new one');
    const copied = await vscode.env.clipboard.readText();
    assert.ok(copied && !secrets.includes(copied), 'the new secret was copied for the app');
    secrets.push(copied); // the app now verifies both
    await burst(3);
    const switched = await run<{ dropped?: Promise<string> }>(COMMANDS.rotateWebhookSecret, { webhookId: hook, switchService: true, graceMs: 600_000 });
    assert.ok(switched?.dropped, JSON.stringify(api.takeLastError()));
    await burst(3); // signed with the new secret
    assert.equal(await switched.dropped, 'verified', 'the old secret is retired after a delivery verified with the new one');
    await burst(2);
    const verdicts = app.requests.map((r) => r.answered);
    assert.deepEqual(
      verdicts.filter((s) => s !== 200),
      [],
      'the app rejected nothing',
    );
    assert.equal(await copySetupSecret(), copied, 'the set-up keeps the new secret (Copy Signing Secret gives it)');
    const info = await admin.getChannel(setup.channel);
    assert.equal(info.rejected, 0, 'the relay rejected nothing');
    assert.equal(info.secrets, 1, 'only the new secret verifies at the end');
  });
});
