// Issue 28 items 7–11 and 13 in the editor: Import Issues stops at an unreachable service and
// resumes, Retry re-sends what was typed, the runner set-up stays out of the workspace, Explain
// Signature on a relay row uses the relay's verdict, Send Sample Event, and Add Webhook's URL rule.
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activated, run } from './editor';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { validatePayload } from '../../../src/core/events';
import { createHmac } from 'node:crypto';
import {
  HOOK_SECRET,
  TOKEN,
  emulatorCall,
  startApp,
  startEmulatorFixture,
  startProxy,
  startRelayFixture,
  type App,
  type Emulator,
  type Proxy,
  type Relay,
} from './fixtures';

const REPO = 'acme/resume';

describe('Resume and re-send (issue 28 items 7–11, 13)', function () {
  let api: ServiceHooksApi;
  let emulator: Emulator;
  let proxy: Proxy;
  let relay: Relay;
  let app: App;
  const config = () => vscode.workspace.getConfiguration();
  const target = vscode.ConfigurationTarget.Global;
  const call = <T>(method: string, path: string, body?: unknown) => emulatorCall<T>(emulator, method, path, body);

  before(async function () {
    api = await activated();
    emulator = await startEmulatorFixture();
    proxy = await startProxy(emulator.url);
    app = await startApp();
    relay = await startRelayFixture(app.url);
    await api.commandContext.services.relay.attach(relay.port, relay.token);
    await config().update(SETTINGS.repositories, [REPO], target);
    await config().update(SETTINGS.baseUrl, proxy.url, target);
    assert.deepEqual(await run(COMMANDS.signIn, { token: TOKEN }), { signedIn: true, validated: true });
  });

  after(async function () {
    await run(COMMANDS.signOut);
    for (const key of [SETTINGS.baseUrl, SETTINGS.repositories]) await config().update(key, undefined, target);
    await run(COMMANDS.stopRelay);
    await relay?.close();
    await app?.close();
    await proxy?.close();
    await emulator?.close();
  });

  /** Posts `body` to the relay's default channel signed over `signedBody`; the relay's seq and verdict. */
  async function toRelay(body: string, signedBody = body): Promise<{ seq: number; status: number }> {
    const signature = 'sha256=' + createHmac('sha256', HOOK_SECRET).update(signedBody).digest('hex');
    const res = await fetch(`http://127.0.0.1:${relay.port}/hooks/default`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-event': 'push' },
      body,
    });
    const listed = await fetch(`http://127.0.0.1:${relay.port}/api/deliveries?limit=1`, { headers: { authorization: `Bearer ${relay.token}` } });
    return { seq: ((await listed.json()) as { deliveries: { seq: number }[] }).deliveries[0]!.seq, status: res.status };
  }

  it('Import Issues with the service down stops at the first chunk, offers a Retry that resumes there, and a second import counts the replaced issues', async function () {
    const file = join(mkdtempSync(join(tmpdir(), 'sh-resume-')), 'issues.json');
    writeFileSync(file, JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}`, state: 'open' }))));
    await proxy.down();
    type Report = { imported: number[]; failed: unknown[]; notSent: number[]; replaced?: number; stopped?: { at: number }; retry?: Record<string, unknown> };
    const down = await run<Report>(COMMANDS.importIssues, { file, repo: REPO, chunkSize: 2 });
    assert.deepEqual(down?.imported, []);
    assert.deepEqual(down.failed, [], 'one stop, not a list of connection errors per chunk');
    assert.deepEqual(down.notSent, [1, 2, 3, 4, 5]);
    assert.deepEqual(down.retry, { file, repo: REPO, from: 0, chunkSize: 2 }, 'Retry resumes at the first record not sent');
    assert.equal(api.takeLastError(), undefined, "the stop is the import's own report (with Retry), not a failed command");
    await proxy.up();
    const partial = await run<Report>(COMMANDS.importIssues, { file, repo: REPO, chunkSize: 2, from: 3 });
    assert.deepEqual(partial?.imported, [4, 5], 'a resumed import sends only from the record it stopped at');
    const resumed = await run<Report>(COMMANDS.importIssues, down.retry);
    assert.deepEqual(resumed?.imported, [1, 2, 3, 4, 5]);
    assert.equal(resumed.replaced, 2, 'issues 4 and 5 were there already');
    const stored = await call<{ number: number }[]>('GET', `/_emulator/repos/${REPO}/issues`);
    assert.deepEqual(
      stored.map((i) => i.number),
      [1, 2, 3, 4, 5],
    );
  });

  it('Set Up Self-Hosted Runner installs into the global storage, not the workspace, and types the line once the shell is ready', async function () {
    const r = await run<{ commands: string[]; line: string; folder: string; typed: string }>(COMMANDS.setUpRunner, { token: 'runner-token-resume' });
    assert.ok(r, JSON.stringify(api.takeLastError()));
    const storage = api.commandContext.extension.globalStorageUri.fsPath;
    assert.equal(r.folder, join(storage, 'runner'));
    for (const folder of vscode.workspace.workspaceFolders ?? [])
      assert.ok(!r.line.includes(folder.uri.fsPath), `the line writes into the workspace: ${r.line}`);
    assert.ok(
      r.commands.slice(1).every((c) => c.includes(storage)),
      'every file it writes is under the global storage',
    );
    assert.equal(r.typed, 'shell-ready', 'typed after the shell reported ready, so it is echoed once');
    vscode.window.terminals.find((t) => t.name === 'Service Runner')?.dispose();
  });

  it("Explain Signature on a relay row uses the relay's verdict, asks for no secret, and explains a rejected delivery with the relay's doctor", async function () {
    const good = await toRelay('{"ref":"refs/heads/main"}');
    assert.equal(good.status, 200);
    const verified = await run<{ ok: boolean; source: string; verdict: string; findings: string[] }>(COMMANDS.explainSignature, { seq: good.seq });
    assert.deepEqual([verified?.ok, verified?.source, verified?.verdict], [true, 'relay', 'verified'], JSON.stringify(verified ?? api.takeLastError()));
    const bad = await toRelay('{"ref":"refs/heads/main"}\n', '{"ref":"refs/heads/main"}');
    assert.equal(bad.status, 401);
    const rejected = await run<{ ok: boolean; verdict: string; findings: string[] }>(COMMANDS.explainSignature, { seq: bad.seq });
    assert.equal(rejected?.ok, false, JSON.stringify(rejected ?? api.takeLastError()));
    assert.equal(rejected.verdict, 'rejected');
    assert.match(rejected.findings[0]!, /does not match/, "the relay's reason first");
    assert.ok(
      rejected.findings.some((f) => /trailing newline was added/.test(f)),
      `the doctor's finding: ${rejected.findings.join(' | ')}`,
    );
    // With a secret given, the doctor runs in the editor on the journaled bytes, as before.
    const local = await run<{ ok: boolean; source: string }>(COMMANDS.explainSignature, { seq: bad.seq, secrets: [HOOK_SECRET] });
    assert.deepEqual([local?.ok, local?.source], [false, 'relay']);
  });

  it('Send Sample Event to a relay channel: the app gets a typed sample, verified by the relay, marked as a test send; to a webhook, signed with the given secret', async function () {
    const since = app.requests.length;
    const sent = await run<{ status: number; deliveryId: string; signed: boolean }>(COMMANDS.sendSampleEvent, {
      url: `http://127.0.0.1:${relay.port}/hooks/default`,
      event: 'pull_request',
      secret: HOOK_SECRET,
    });
    assert.equal(sent?.status, 200, JSON.stringify(sent ?? api.takeLastError()));
    assert.match(sent.deliveryId, /^test-[0-9a-f-]{36}$/);
    const got = await app.next(since);
    assert.equal(got.headers['x-service-event'], 'pull_request');
    assert.equal(got.headers['x-service-delivery'], sent.deliveryId);
    assert.ok(validatePayload('pull_request', JSON.parse(got.body.toString('utf8'))).ok, 'a typed pull_request payload');
    const listed = await fetch(`http://127.0.0.1:${relay.port}/api/deliveries?limit=1`, { headers: { authorization: `Bearer ${relay.token}` } });
    const [entry] = ((await listed.json()) as { deliveries: { verification: string; deliveryId?: string }[] }).deliveries;
    assert.deepEqual([entry?.verification, entry?.deliveryId], ['verified', sent.deliveryId], 'the relay verified it with the channel secret');

    const hook = await call<{ id: string }>('POST', `/api/v1/repos/${REPO}/webhooks`, {
      url: app.url,
      content_type: 'json',
      events: ['issue'],
      secret: 'webhook-secret-sample',
    });
    const before = app.requests.length;
    const direct = await run<{ status: number; signed: boolean; url: string }>(COMMANDS.sendSampleEvent, {
      webhookId: hook.id,
      event: 'issue',
      secret: 'webhook-secret-sample',
    });
    assert.deepEqual([direct?.status, direct?.signed, direct?.url], [200, true, app.url], JSON.stringify(direct ?? api.takeLastError()));
    const at = await app.next(before);
    const sig = 'sha256=' + createHmac('sha256', 'webhook-secret-sample').update(at.body).digest('hex');
    assert.equal(at.headers['x-service-signature'], sig);
    assert.equal(await run(COMMANDS.sendSampleEvent, { url: app.url, event: 'deploy', secret: '' }), undefined, 'an unknown event type is refused');
    assert.equal(api.takeLastError()?.kind, 'user');
  });

  it("Add Webhook refuses 0.0.0.0 and link-local URLs by the service's rule before sending anything", async function () {
    for (const url of ['http://0.0.0.0:3000/', 'http://169.254.169.254/latest', 'http://[fe80::1]/']) {
      assert.equal(await run(COMMANDS.addWebhook, { repo: REPO, url, events: ['push'], secret: 'none' }), undefined, url);
      const err = api.takeLastError();
      assert.equal(err?.kind, 'user', `${url}: ${JSON.stringify(err)}`);
      assert.match(err.message, /The service refuses this address/);
    }
    const hooks = await call<{ url: string }[]>('GET', `/api/v1/repos/${REPO}/webhooks`);
    assert.ok(!hooks.some((h) => /0\.0\.0\.0|169\.254|fe80/.test(h.url)), 'nothing was created');
  });
});
