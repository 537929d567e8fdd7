// ServiceClient against a hostile peer: the behaviours the emulator never produces (429 with
// Retry-After, 5xx then success, dropped sockets, hangs, garbage bodies, echoed credentials).
import { strict as assert } from 'node:assert';
import { ServiceClient, ServiceError, type ServiceClientOptions } from '../../../../src/core/client';
import { isServiceError } from '../../../../src/extension/contracts';
import { reply, startPeer, type Peer } from './peer';

const TOKEN = 'tok_live_5f0c2b9e8d7a6c41';
const REPO = { owner: 'acme', repo: 'widgets' };
const HOOK = { id: 'h1', url: 'http://example.test/hook', content_type: 'json', events: ['push'], secret_set: true, created_at: '2026-01-01T00:00:00Z' };

describe('service client: transport, retries and errors (hostile peer)', () => {
  let peer: Peer;
  let sleeps: number[];
  const client = (extra: Partial<ServiceClientOptions> = {}) =>
    new ServiceClient({ baseUrl: peer.url, token: TOKEN, sleep: async (ms) => void sleeps.push(ms), ...extra });

  async function rejects(p: Promise<unknown>): Promise<ServiceError> {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof ServiceError, `expected a ServiceError, got ${String(err)}`);
      assert.ok(isServiceError(err), 'satisfies the extension contract');
      return err;
    }
    assert.fail('expected a rejection');
  }

  beforeEach(async () => {
    peer = await startPeer();
    sleeps = [];
  });
  afterEach(() => peer.close());

  describe('requests', () => {
    it('sends the Bearer token, JSON bodies, and keeps a base path prefix', async () => {
      peer.handle = (_r, res) => reply(res, 201, HOOK);
      const c = new ServiceClient({ baseUrl: `${peer.url}/prefix/`, token: TOKEN });
      const hook = await c.createWebhook(REPO, { url: 'http://example.test/hook', content_type: 'json', secret: 'shh-secret', events: ['push'] });
      assert.deepEqual(hook, HOOK);
      const r = peer.requests[0]!;
      assert.equal(r.method, 'POST');
      assert.equal(r.url, '/prefix/api/v1/repos/acme/widgets/webhooks');
      assert.equal(r.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(r.body), { url: 'http://example.test/hook', content_type: 'json', secret: 'shh-secret', events: ['push'] });
    });

    it('does not double /api/v1 given in the base URL, and sends no Authorization without a token', async () => {
      peer.handle = (_r, res) => reply(res, 200, []);
      await new ServiceClient({ baseUrl: `${peer.url}/api/v1/` }).listWebhooks(REPO);
      assert.equal(peer.requests[0]!.url, '/api/v1/repos/acme/widgets/webhooks');
      assert.equal(peer.requests[0]!.headers.authorization, undefined);
    });

    it('percent-encodes path segments and never lets . or .. climb the path', async () => {
      peer.handle = (_r, res) => reply(res, 204);
      await client().deleteWebhook({ owner: 'a b', repo: 'x/y?z#' }, 'h.1%');
      await client().ping('..x');
      assert.equal(peer.requests[0]!.url, '/api/v1/repos/a%20b/x%2Fy%3Fz%23/webhooks/h.1%25');
      assert.equal(peer.requests[1]!.url, '/api/v1/webhooks/..x/ping');
      await assert.rejects(client().deleteWebhook(REPO, ''), /must not be empty/);
      await assert.rejects(client().deleteWebhook(REPO, '..'), /must not be '\.\.'/);
      await assert.rejects(client().ping('.'), TypeError);
      assert.equal(peer.requests.length, 2);
    });

    it('rejects a base URL that is not http(s)', () => {
      assert.throws(() => new ServiceClient({ baseUrl: 'ftp://host' }), /http or https/);
      assert.throws(() => new ServiceClient({ baseUrl: 'not a url' }), /absolute http\(s\) URL/);
    });

    it('sends limit/offset for the delivery list and refuses negative paging', async () => {
      peer.handle = (_r, res) => reply(res, 200, { total: 0, successful: 0, failed: 0, deliveries: [] });
      assert.deepEqual(await client().listDeliveries('h 1', { limit: 5, offset: 10 }), { offered: true, total: 0, successful: 0, failed: 0, deliveries: [] });
      assert.equal(peer.requests[0]!.url, '/api/v1/webhooks/h%201/deliveries?limit=5&offset=10');
      await assert.rejects(client().listDeliveries('h1', { limit: -1 }), TypeError);
    });
  });

  describe('retries', () => {
    it('honours Retry-After in seconds on 429, then returns the list', async () => {
      peer.handle = (_r, res, n) => (n === 1 ? reply(res, 429, { error: 'slow down' }, { 'retry-after': '2' }) : reply(res, 200, [HOOK]));
      assert.deepEqual(await client().listWebhooks(REPO), [HOOK]);
      assert.equal(peer.requests.length, 2);
      assert.deepEqual(sleeps, [2000]);
    });

    it('honours Retry-After as an HTTP date against the injected clock, and caps it', async () => {
      const now = Date.parse('2026-03-01T12:00:00Z');
      peer.handle = (_r, res, n) =>
        n === 1
          ? reply(res, 503, '', { 'retry-after': 'Sun, 01 Mar 2026 12:00:05 GMT' })
          : n === 2
            ? reply(res, 503, '', { 'retry-after': '86400' })
            : reply(res, 200, []);
      assert.deepEqual(await client({ now: () => now, maxRetryAfterMs: 20_000 }).listWebhooks(REPO), []);
      assert.deepEqual(sleeps, [5000, 20_000]);
    });

    it('backs off exponentially on 502/503/504 and gives up after `retries` retries', async () => {
      peer.handle = (_r, res, n) => reply(res, [502, 503, 504, 503][(n - 1) % 4]!, { error: `down ${n}` });
      const err = await rejects(client({ retries: 3, backoffMs: 100 }).listWebhooks(REPO));
      assert.equal(peer.requests.length, 4);
      assert.deepEqual(sleeps, [100, 200, 400]);
      assert.equal(err.kind, 'http');
      assert.equal(err.status, 503);
      assert.equal(err.method, 'GET');
      assert.equal(err.path, '/api/v1/repos/acme/widgets/webhooks');
      assert.match(err.message, /^GET \/api\/v1\/repos\/acme\/widgets\/webhooks: 503 Service Unavailable: down 4$/);
    });

    it('retries DELETE (idempotent) after 503', async () => {
      peer.handle = (_r, res, n) => reply(res, n === 1 ? 503 : 204);
      await client().deleteWebhook(REPO, 'h1');
      assert.equal(peer.requests.length, 2);
      assert.deepEqual(
        peer.requests.map((r) => r.method),
        ['DELETE', 'DELETE'],
      );
      assert.equal(sleeps.length, 1);
    });

    for (const [name, call] of [
      ['POST ping', (c: ServiceClient) => c.ping('h1')],
      ['POST retry', (c: ServiceClient) => c.retryDelivery('h1', 'd1')],
      ['POST create', (c: ServiceClient) => c.createWebhook(REPO, { url: 'http://x.test/', content_type: 'json', events: ['push'] })],
      ['PATCH update', (c: ServiceClient) => c.updateWebhook(REPO, 'h1', { events: ['push'] })],
      ['POST issues/bulk', (c: ServiceClient) => c.importIssues(REPO, [])],
      ['POST secrets', (c: ServiceClient) => c.createSecret(REPO, { name: 'N', value: 'v' })],
    ] as const) {
      it(`never retries ${name} (not idempotent), even on 503 with Retry-After`, async () => {
        peer.handle = (_r, res) => reply(res, 503, { error: 'busy' }, { 'retry-after': '1' });
        const err = await rejects(call(client()));
        assert.equal(peer.requests.length, 1);
        assert.deepEqual(sleeps, []);
        assert.equal(err.status, 503);
      });
    }

    it('does not retry other failures such as 500 or 400', async () => {
      peer.handle = (_r, res) => reply(res, 500, 'oops');
      const err = await rejects(client().listWebhooks(REPO));
      assert.equal(peer.requests.length, 1);
      assert.equal(err.bodyExcerpt, 'oops');
    });

    it('retries a GET whose connection is dropped, but not a POST', async () => {
      peer.handle = (r, res, n) => (n === 1 || r.method === 'POST' ? res.socket!.destroy() : reply(res, 200, [HOOK]));
      assert.deepEqual(await client().listWebhooks(REPO), [HOOK]);
      assert.equal(peer.requests.length, 2);
      assert.deepEqual(sleeps, [500]);
      const err = await rejects(client().ping('h1'));
      assert.equal(err.kind, 'network');
      assert.equal(peer.requests.length, 3);
      assert.match(err.message, /^POST \/api\/v1\/webhooks\/h1\/ping: cannot reach the service/);
    });

    it('reports a refused connection as kind network after the retries', async () => {
      const { url } = peer;
      await peer.close();
      const err = await rejects(new ServiceClient({ baseUrl: url, token: TOKEN, retries: 2, sleep: async (ms) => void sleeps.push(ms) }).listWebhooks(REPO));
      assert.equal(err.kind, 'network');
      assert.equal(sleeps.length, 2);
      assert.match(err.message, /ECONNREFUSED/);
      peer = await startPeer();
    });
  });

  describe('time-outs and bodies', () => {
    it('times out a peer that never answers (kind timeout, no retry)', async () => {
      peer.handle = () => undefined;
      const err = await rejects(client({ timeoutMs: 150 }).listWebhooks(REPO));
      assert.equal(err.kind, 'timeout');
      assert.equal(err.method, 'GET');
      assert.equal(peer.requests.length, 1);
      assert.match(err.message, /no complete answer within 150 ms/);
    });

    it('times out a body that stalls after the headers', async () => {
      peer.handle = (_r, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
      };
      const err = await rejects(client({ timeoutMs: 150 }).listWebhooks(REPO));
      assert.equal(err.kind, 'timeout');
    });

    it('a 2xx with garbage where a list is required is invalid-response', async () => {
      peer.handle = (_r, res) => reply(res, 200, '<html>hello</html>');
      const err = await rejects(client().listWebhooks(REPO));
      assert.equal(err.kind, 'invalid-response');
      assert.equal(err.status, 200);
      peer.handle = (_r, res) => reply(res, 200, [{ url: 'no id' }]);
      assert.equal((await rejects(client().listWebhooks(REPO))).kind, 'invalid-response');
      peer.handle = (_r, res) => reply(res, 200, { nothing: true });
      assert.equal((await rejects(client().listDeliveries('h1', {}))).kind, 'invalid-response');
    });

    it('tolerates empty and non-JSON bodies where the spec shows none', async () => {
      peer.handle = (_r, res) => reply(res, 201);
      assert.equal(await client().createWebhook(REPO, { url: 'http://x.test/', content_type: 'json', events: ['push'] }), undefined);
      assert.equal(await client().ping('h1'), undefined);
      assert.equal(await client().importIssues(REPO, []), undefined);
      peer.handle = (_r, res) => reply(res, 200, 'ok, thanks');
      assert.equal(await client().updateWebhook(REPO, 'h1', { events: ['push'] }), undefined);
      assert.equal(await client().createSecret(REPO, { name: 'N', value: 'v' }), undefined);
      assert.equal(await client().retryDelivery('h1', 'd1'), undefined);
      await client().deleteWebhook(REPO, 'h1');
    });

    it('normalises records: numeric ids become strings, missing fields get defaults', async () => {
      peer.handle = (_r, res) => reply(res, 200, { webhooks: [{ id: 7, url: 'http://x.test/', events: ['push', 3] }] });
      assert.deepEqual(await client().listWebhooks(REPO), [{ id: '7', url: 'http://x.test/', content_type: 'json', events: ['push'], secret_set: false }]);
      peer.handle = (_r, res) =>
        reply(res, 200, {
          deliveries: [
            { id: 9, event: 'push', success: false, status: 500 },
            { id: 'd2', success: true, status: 200 },
          ],
        });
      const page = await client().listDeliveries('h1');
      assert.ok(page.offered);
      assert.equal(page.total, 2);
      assert.equal(page.successful, 1);
      assert.equal(page.failed, 1);
      assert.equal(page.deliveries[0]!.id, '9');
      assert.equal(page.deliveries[0]!.webhook_id, 'h1');
      assert.deepEqual(page.deliveries[0]!.attempts, []);
    });

    it('caps the response size', async () => {
      peer.handle = (_r, res) => reply(res, 200, JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ id: `h${i}` }))));
      const err = await rejects(client({ maxResponseBytes: 1024 }).listWebhooks(REPO));
      assert.equal(err.kind, 'invalid-response');
      assert.match(err.message, /larger than 1024 bytes/);
    });

    it('listDeliveries is "not offered" and getDelivery undefined on 404 and 405', async () => {
      for (const status of [404, 405]) {
        peer.handle = (_r, res) => reply(res, status, { error: 'no such route' });
        assert.deepEqual(await client().listDeliveries('h1', { limit: 10 }), { offered: false, reason: `not offered by this service (${status})` });
        assert.equal(await client().getDelivery('h1', 'd1'), undefined);
      }
      peer.handle = (_r, res) => reply(res, 401, { error: 'bad token' });
      assert.equal((await rejects(client().listDeliveries('h1'))).status, 401);
    });
  });

  describe('credentials never leak', () => {
    function assertClean(err: ServiceError, ...secrets: string[]) {
      for (const s of secrets) {
        for (const [what, text] of [
          ['message', err.message],
          ['stack', err.stack ?? ''],
          ['JSON', JSON.stringify(err)],
          ['String', String(err)],
          ['excerpt', err.bodyExcerpt ?? ''],
        ]) {
          assert.ok(!text.includes(s), `${what} contains a credential: ${text}`);
        }
      }
    }

    it('redacts a token the server echoes back, and keeps the excerpt within 300 characters', async () => {
      peer.handle = (r, res) => reply(res, 401, { error: `token ${TOKEN} is not valid`, got: r.headers.authorization, padding: 'x'.repeat(5000) });
      const err = await rejects(client().listWebhooks(REPO));
      assert.equal(err.status, 401);
      assertClean(err, TOKEN);
      assert.ok(err.bodyExcerpt!.length <= 300, `excerpt of ${err.bodyExcerpt!.length} chars`);
      assert.match(err.bodyExcerpt!, /\[redacted\]/);
      assert.match(err.message, /401 Unauthorized: token \[redacted\] is not valid/);
      assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(err)) as object).sort(), ['bodyExcerpt', 'kind', 'message', 'method', 'name', 'path', 'status']);
    });

    it('redacts the webhook secret and the CI secret value echoed in a 400', async () => {
      peer.handle = (r, res) => reply(res, 400, { error: `bad request ${r.body}`, field: 'url' });
      const hookErr = await rejects(client().createWebhook(REPO, { url: 'nope', content_type: 'json', secret: 'whsec-very-private', events: ['push'] }));
      assertClean(hookErr, 'whsec-very-private', TOKEN);
      assert.match(hookErr.message, /\(field url\)$/);
      const secretErr = await rejects(client().createSecret(REPO, { name: 'DEPLOY_KEY', value: 'ci-secret-value-123' }));
      assertClean(secretErr, 'ci-secret-value-123', TOKEN);
      assert.match(secretErr.bodyExcerpt!, /DEPLOY_KEY/);
    });

    it('redacts a secret echoed inside a JSON string, where its quotes and backslashes come back escaped', async () => {
      const secret = 'pa"ss\\word-42';
      peer.handle = (r, res) => reply(res, 400, { error: `secret ${(JSON.parse(r.body) as { secret: string }).secret} is too weak`, field: 'secret' });
      const err = await rejects(client().createWebhook(REPO, { url: 'http://127.0.0.1:1/x', content_type: 'json', secret, events: ['push'] }));
      assertClean(err, secret, JSON.stringify(secret).slice(1, -1), TOKEN);
      assert.match(err.bodyExcerpt!, /secret \[redacted\] is too weak/);
    });

    it('network and time-out errors carry no credential either', async () => {
      peer.handle = (_r, res) => res.socket!.destroy();
      assertClean(await rejects(client({ retries: 0 }).listWebhooks(REPO)), TOKEN);
      peer.handle = () => undefined;
      assertClean(await rejects(client({ timeoutMs: 100 }).listWebhooks(REPO)), TOKEN);
    });
  });
});
