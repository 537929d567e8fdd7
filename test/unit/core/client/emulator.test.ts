// ServiceClient against the real emulator (relay/emulator): every endpoint, and the error
// paths it produces (401 wrong token, 404 unknown id, 400 invalid field, 409 retry of a success).
import { strict as assert } from 'node:assert';
import { ServiceClient, ServiceError, type IssueRecord } from '../../../../src/core/client';
import { verify } from '../../../../src/core/signing';
import { startEmulator, type EmulatorServer } from '../../../../relay/emulator';
import { startTarget, type TargetApp } from '../../relay/support/helpers';

const TOKEN = 'emulator-token-7c1f0a';
const SECRET = 'hook-secret-42';

async function rejects(p: Promise<unknown>, status: number): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ServiceError, `expected a ServiceError, got ${String(err)}`);
    assert.equal(err.kind, 'http');
    assert.equal(err.status, status, err.message);
    assert.ok(err.bodyExcerpt && err.bodyExcerpt.length > 0, 'carries a body excerpt');
    assert.ok(!err.message.includes(TOKEN) && !JSON.stringify(err).includes(TOKEN) && !(err.stack ?? '').includes(TOKEN));
    return err;
  }
  assert.fail(`expected a ${status}`);
}

describe('service client against the emulator', function () {
  this.timeout(30_000);
  let emulator: EmulatorServer;
  let target: TargetApp;
  let client: ServiceClient;
  const repo = { owner: 'acme', repo: 'widgets' };

  beforeEach(async () => {
    target = await startTarget();
    emulator = await startEmulator({ port: 0, host: '127.0.0.1', token: TOKEN });
    client = new ServiceClient({ baseUrl: `${emulator.url}/`, token: TOKEN, sleep: async () => undefined });
  });
  afterEach(async () => {
    await emulator.close();
    await target.close();
  });

  it('creates, lists, updates and deletes webhooks; the secret is never returned', async () => {
    assert.deepEqual(await client.listWebhooks(repo), []);
    const created = await client.createWebhook(repo, { url: target.url, content_type: 'json', secret: SECRET, events: ['push', 'issue'] });
    assert.ok(created);
    assert.equal(typeof created.id, 'string');
    assert.equal(created.url, target.url);
    assert.equal(created.content_type, 'json');
    assert.deepEqual(created.events, ['push', 'issue']);
    assert.equal(created.secret_set, true);
    assert.match(created.created_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(!JSON.stringify(created).includes(SECRET));
    const other = await client.createWebhook({ owner: 'acme', repo: 'other' }, { url: target.url, content_type: 'json', events: ['push'] });
    assert.equal(other?.secret_set, false);

    assert.deepEqual(await client.listWebhooks(repo), [created]);
    const updated = await client.updateWebhook(repo, created.id, { events: ['release'] });
    assert.deepEqual(updated?.events, ['release']);
    assert.deepEqual((await client.listWebhooks(repo))[0]!.events, ['release']);

    await client.deleteWebhook(repo, created.id);
    assert.deepEqual(await client.listWebhooks(repo), []);
    const again = await rejects(client.deleteWebhook(repo, created.id), 404);
    assert.equal(again.method, 'DELETE');
    assert.equal(again.path, `/api/v1/repos/acme/widgets/webhooks/${encodeURIComponent(created.id)}`);
    assert.match(again.bodyExcerpt!, /not found/);
  });

  it('answers 401 for a wrong or missing token, without echoing it', async () => {
    for (const token of ['wrong-token-123', undefined]) {
      const c = new ServiceClient({ baseUrl: emulator.url, token });
      const err = await rejects(c.listWebhooks(repo), 401);
      assert.match(err.message, /^GET \/api\/v1\/repos\/acme\/widgets\/webhooks: 401 Unauthorized: /);
      await rejects(c.ping('x'), 401);
      await rejects(c.listDeliveries('x', {}), 401);
    }
  });

  it('answers 400 naming the invalid field', async () => {
    const badUrl = await rejects(client.createWebhook(repo, { url: 'not a url', content_type: 'json', events: ['push'] }), 400);
    assert.match(badUrl.bodyExcerpt!, /"field":"url"/);
    assert.match(badUrl.message, /url must be an absolute http\(s\) URL/);
    const badEvent = await rejects(client.createWebhook(repo, { url: target.url, content_type: 'json', events: ['deploy'] }), 400);
    assert.match(badEvent.message, /unknown event type "deploy".*\(field events\[0\]\)/);
    await rejects(client.createWebhook(repo, { url: target.url, content_type: 'application/json' as 'json', events: ['push'] }), 400);
    const hook = (await client.createWebhook(repo, { url: target.url, content_type: 'json', events: ['push'] }))!;
    await rejects(client.updateWebhook(repo, hook.id, { events: [] }), 400);
    const badIssue = await rejects(
      client.importIssues(repo, [{ number: 1, title: 7 as unknown as string, body: '', labels: [], assignees: [], state: 'open' }]),
      400,
    );
    assert.match(badIssue.message, /title/);
    const badSecret = await rejects(client.createSecret(repo, { name: 'has space', value: 'topsecret-value' }), 400);
    assert.ok(!badSecret.message.includes('topsecret-value') && !badSecret.bodyExcerpt!.includes('topsecret-value'));
  });

  it('answers 404 for unknown ids; the optional delivery endpoints say "not offered" / undefined', async () => {
    await rejects(client.ping('no-such-hook'), 404);
    await rejects(client.updateWebhook(repo, 'no-such-hook', { events: ['push'] }), 404);
    await rejects(client.deleteWebhook(repo, 'no-such-hook'), 404);
    await rejects(client.retryDelivery('no-such-hook', 'd'), 404);
    const hook = (await client.createWebhook(repo, { url: target.url, content_type: 'json', events: ['push'] }))!;
    await rejects(client.retryDelivery(hook.id, 'no-such-delivery'), 404);
    assert.equal(await client.getDelivery(hook.id, 'no-such-delivery'), undefined);
    assert.deepEqual(await client.listDeliveries('no-such-hook', {}), { offered: false, reason: 'not offered by this service (404)' });
  });

  it('pings: a signed ping delivery reaches the receiver and is listed with its request', async () => {
    const hook = (await client.createWebhook(repo, { url: target.url, content_type: 'json', secret: SECRET, events: ['push'] }))!;
    const ping = await client.ping(hook.id);
    assert.ok(ping);
    assert.equal(ping.event, 'ping');
    assert.equal(ping.webhook_id, hook.id);
    await target.waitFor(1);
    const got = target.received[0]!;
    assert.equal(got.headers['x-service-event'], 'ping');
    assert.deepEqual(verify(got.body, String(got.headers['x-service-signature']), [SECRET]), { ok: true, index: 0 });

    const list = await client.listDeliveries(hook.id, { limit: 10 });
    assert.ok(list.offered);
    assert.equal(list.total, 1);
    assert.equal(list.deliveries[0]!.id, ping.id);
    const detail = await client.getDelivery(hook.id, ping.id);
    assert.ok(detail);
    assert.equal(detail.request.body, got.body.toString());
    const sig = Object.entries(detail.request.headers).find(([k]) => k.toLowerCase() === 'x-service-signature')?.[1];
    assert.ok(verify(detail.request.body, sig, [SECRET]).ok);
  });

  it('pages deliveries newest first with limit and offset, and counts outcomes', async () => {
    const hook = (await client.createWebhook(repo, { url: target.url, content_type: 'json', events: ['push'] }))!;
    target.statusFor = (_r, all) => (all.length === 2 ? 500 : 200);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.ping(hook.id))!.id);
    const first = await client.listDeliveries(hook.id, { limit: 2 });
    const second = await client.listDeliveries(hook.id, { limit: 2, offset: 2 });
    assert.ok(first.offered && second.offered);
    assert.deepEqual(
      [...first.deliveries, ...second.deliveries].map((d) => d.id),
      [...ids].reverse(),
    );
    assert.equal(first.total, 3);
    assert.equal(first.successful, 2);
    assert.equal(first.failed, 1);
    const failed = first.deliveries.find((d) => !d.success)!;
    assert.equal(failed.status, 500);
    assert.equal(failed.attempts.length, 1);
  });

  it('retries a failed delivery (a new attempt on the same record); a success cannot be retried (409)', async () => {
    const hook = (await client.createWebhook(repo, { url: target.url, content_type: 'json', events: ['push'] }))!;
    target.status = 503;
    const failed = (await client.ping(hook.id))!;
    assert.equal(failed.success, false);
    assert.equal(failed.status, 503);
    target.status = 200;
    const retried = await client.retryDelivery(hook.id, failed.id);
    assert.ok(retried);
    assert.equal(retried.id, failed.id);
    assert.equal(retried.success, true);
    assert.equal(retried.redelivery, true);
    assert.equal(retried.attempts.length, 2);
    assert.equal(target.received.length, 2, 'POST retry is sent once: no client-side retry of a non-idempotent call');
    const conflict = await rejects(client.retryDelivery(hook.id, failed.id), 409);
    assert.match(conflict.message, /only a failed delivery is retried/);
  });

  it('imports issues and creates a CI secret (the value never comes back)', async () => {
    const issues: IssueRecord[] = [
      { number: 1, title: 'First', body: 'text', labels: ['bug'], assignees: ['octo'], state: 'open' },
      { number: 2, title: 'Second', body: '', labels: [], assignees: [], state: 'closed' },
    ];
    assert.deepEqual(await client.importIssues(repo, issues), { imported: 2, replaced: 0, issues: [{ number: 1 }, { number: 2 }] });
    const made = await client.createSecret(repo, { name: 'DEPLOY_KEY', value: 'value-never-returned', protected: true });
    assert.deepEqual(made, { name: 'DEPLOY_KEY', protected: true });
  });
});
