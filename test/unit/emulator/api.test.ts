// The emulator's API on a real socket: every endpoint's happy path and its error paths
// (400 with the field, 401, 404, 405, 409, 413, 415, malformed JSON), and that bad input loses nothing.
import { strict as assert } from 'node:assert';
import { request as httpRequest } from 'node:http';
import { call, start, startReceiver, addHook, fire, TOKEN, type Harness, type Receiver } from './helpers';

const REPO = 'acme/widgets';
const HOOKS = `/api/v1/repos/${REPO}/webhooks`;

describe('emulator API', () => {
  let h: Harness;
  let rx: Receiver;

  beforeEach(async () => {
    rx = await startReceiver(200);
    h = await start({ maxBody: 4096, timeScale: 60_000 });
  });
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  describe('authentication', () => {
    it('answers 401 without a token, with a wrong one, or another scheme; accepts any case of Bearer', async () => {
      for (const headers of [
        { authorization: '' },
        { authorization: 'Bearer nope' },
        { authorization: `Basic ${TOKEN}` },
        { authorization: `Bearer ${TOKEN}x` },
      ]) {
        const r = await h.api('GET', HOOKS, undefined, headers);
        assert.equal(r.status, 401, JSON.stringify(headers));
        assert.match(r.json.error, /token/);
        assert.equal(r.headers['www-authenticate'], 'Bearer');
        assert.ok(!r.text.includes(TOKEN));
      }
      assert.equal((await h.api('GET', HOOKS, undefined, { authorization: `bearer ${TOKEN}` })).status, 200);
    });

    it('guards every /api/v1 route (even unknown ones) and the event endpoint, not the failing endpoint', async () => {
      const none = { authorization: '' };
      assert.equal((await h.api('GET', '/api/v1/nothing', undefined, none)).status, 401);
      assert.equal((await h.api('POST', '/api/v1/webhooks/1/ping', undefined, none)).status, 401);
      assert.equal((await h.api('POST', `/_emulator/repos/${REPO}/events`, { event: 'push' }, none)).status, 401);
      assert.equal((await h.api('POST', '/_emulator/fail/503', {}, none)).status, 503);
    });
  });

  describe('webhooks', () => {
    it('creates (201, record without the secret), lists, patches, deletes (204)', async () => {
      assert.deepEqual((await h.api('GET', HOOKS)).json, [], 'an unknown repository exists, empty');
      const c = await h.api('POST', HOOKS, { url: rx.url, content_type: 'json', secret: 'shh-very-secret', events: ['push', 'issue'] });
      assert.equal(c.status, 201);
      assert.deepEqual(Object.keys(c.json).sort(), ['content_type', 'created_at', 'events', 'id', 'secret_set', 'url']);
      assert.equal(typeof c.json.id, 'string');
      assert.equal(c.json.url, rx.url);
      assert.equal(c.json.content_type, 'json');
      assert.deepEqual(c.json.events, ['push', 'issue']);
      assert.equal(c.json.secret_set, true);
      assert.match(c.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(!c.text.includes('shh-very-secret'));
      assert.equal(c.headers.location, `${HOOKS}/${c.json.id}`);

      const c2 = await h.api('POST', HOOKS, { url: 'https://example.com/x?y=1', content_type: 'json', events: ['release'] });
      assert.equal(c2.json.secret_set, false);
      assert.notEqual(c2.json.id, c.json.id);

      const list = await h.api('GET', HOOKS);
      assert.equal(list.status, 200);
      assert.deepEqual(list.json, [c.json, c2.json]);
      assert.ok(!list.text.includes('shh-very-secret'));
      assert.deepEqual((await h.api('GET', '/api/v1/repos/acme/other/webhooks')).json, [], 'webhooks are per repository');

      const p = await h.api('PATCH', `${HOOKS}/${c.json.id}`, { events: ['pull_request'] });
      assert.equal(p.status, 200);
      assert.deepEqual(p.json, { ...c.json, events: ['pull_request'] }, 'events are replaced, the rest kept');
      const cleared = await h.api('PATCH', `${HOOKS}/${c.json.id}`, { secret: '' });
      assert.equal(cleared.json.secret_set, false);
      const moved = await h.api('PATCH', `${HOOKS}/${c.json.id}`, { url: 'http://127.0.0.1:9/x', secret: 'new' });
      assert.equal(moved.json.url, 'http://127.0.0.1:9/x');
      assert.equal(moved.json.secret_set, true);

      const d = await h.api('DELETE', `${HOOKS}/${c.json.id}`);
      assert.equal(d.status, 204);
      assert.equal(d.text, '');
      assert.deepEqual((await h.api('GET', HOOKS)).json, [c2.json]);
      assert.equal((await h.api('DELETE', `${HOOKS}/${c.json.id}`)).status, 404);
      assert.equal((await h.api('PATCH', `${HOOKS}/${c.json.id}`, { events: ['push'] })).status, 404);
      assert.equal((await h.api('DELETE', `/api/v1/repos/acme/other/webhooks/${c2.json.id}`)).status, 404, 'a webhook of another repository');
    });

    const cases: [string, unknown, string | undefined, RegExp][] = [
      ['url missing', { content_type: 'json', events: ['push'] }, 'url', /url is required/],
      ['url relative', { url: '/hooks', content_type: 'json', events: ['push'] }, 'url', /absolute/],
      ['url ftp', { url: 'ftp://x.test/', content_type: 'json', events: ['push'] }, 'url', /http or https/],
      ['url not a string', { url: 5, content_type: 'json', events: ['push'] }, 'url', /string/],
      ['content_type missing', { url: 'http://x.test', events: ['push'] }, 'content_type', /required/],
      ['content_type label', { url: 'http://x.test', content_type: 'application/json', events: ['push'] }, 'content_type', /'json'/],
      ['content_type form', { url: 'http://x.test', content_type: 'form', events: ['push'] }, 'content_type', /'json'/],
      ['events missing', { url: 'http://x.test', content_type: 'json' }, 'events', /required/],
      ['events empty', { url: 'http://x.test', content_type: 'json', events: [] }, 'events', /empty/],
      ['events a string', { url: 'http://x.test', content_type: 'json', events: 'push' }, 'events', /array/],
      ['events unknown', { url: 'http://x.test', content_type: 'json', events: ['push', 'deploy'] }, 'events[1]', /deploy/],
      ['events ping', { url: 'http://x.test', content_type: 'json', events: ['ping'] }, 'events[0]', /unknown event type/],
      ['events duplicate', { url: 'http://x.test', content_type: 'json', events: ['push', 'issue', 'push'] }, 'events[2]', /duplicate/],
      ['secret a number', { url: 'http://x.test', content_type: 'json', events: ['push'], secret: 5 }, 'secret', /string/],
      ['url link-local (cloud metadata)', { url: 'http://169.254.169.254/latest/meta-data', content_type: 'json', events: ['push'] }, 'url', /link-local/],
      ['url link-local, decimal form', { url: 'http://2852039166/', content_type: 'json', events: ['push'] }, 'url', /169\.254\.169\.254 is a link-local/],
      ['url link-local, IPv4-mapped IPv6', { url: 'http://[::ffff:169.254.169.254]/', content_type: 'json', events: ['push'] }, 'url', /link-local/],
      ['url link-local IPv6', { url: 'http://[fe80::1]:8080/h', content_type: 'json', events: ['push'] }, 'url', /link-local/],
      ['url link-local through NAT64', { url: 'http://[64:ff9b::a9fe:a9fe]/', content_type: 'json', events: ['push'] }, 'url', /link-local/],
      ['url link-local, IPv4-compatible IPv6', { url: 'http://[::a9fe:a9fe]/', content_type: 'json', events: ['push'] }, 'url', /link-local/],
      ['url unspecified IPv4', { url: 'http://0.0.0.0:8788/hooks/default', content_type: 'json', events: ['push'] }, 'url', /unspecified/],
      ['url unspecified, short form', { url: 'http://0/', content_type: 'json', events: ['push'] }, 'url', /unspecified/],
      ['url unspecified IPv6', { url: 'http://[::]/h', content_type: 'json', events: ['push'] }, 'url', /unspecified/],
      ['url without a host', { url: 'http://', content_type: 'json', events: ['push'] }, 'url', /absolute/],
      ['url without a host (file-like)', { url: 'http:/hooks', content_type: 'json', events: ['push'] }, 'url', /host|absolute/],
      ['an array body', [], undefined, /JSON object/],
    ];
    for (const [name, body, field, message] of cases) {
      it(`400 on create: ${name}${field ? ` (field ${field})` : ''}`, async () => {
        const r = await h.api('POST', HOOKS, body);
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.field, field);
        assert.match(r.json.error, message);
      });
    }

    it('400 on patch: bad events, bad url, nothing to change', async () => {
      const w = await addHook(h, REPO, rx.url, ['push']);
      const r1 = await h.api('PATCH', `${HOOKS}/${w.id}`, { events: [] });
      assert.deepEqual([r1.status, r1.json.field], [400, 'events']);
      const r2 = await h.api('PATCH', `${HOOKS}/${w.id}`, { url: 'mailto:a@b' });
      assert.deepEqual([r2.status, r2.json.field], [400, 'url']);
      const r4 = await h.api('PATCH', `${HOOKS}/${w.id}`, { url: 'http://169.254.169.254/latest' });
      assert.deepEqual([r4.status, r4.json.field], [400, 'url']);
      assert.match(r4.json.error, /link-local/);
      const r3 = await h.api('PATCH', `${HOOKS}/${w.id}`, { active: true });
      assert.equal(r3.status, 400);
      assert.match(r3.json.error, /nothing to change/);
      assert.deepEqual((await h.api('GET', HOOKS)).json[0].events, ['push'], 'unchanged after the bad patches');
      assert.equal((await h.api('GET', HOOKS)).json[0].url, rx.url);
    });
  });

  describe('bodies', () => {
    it('400 for malformed JSON and an empty body; 415 for another content type', async () => {
      const bad = await h.api('POST', HOOKS, '{"url": ');
      assert.equal(bad.status, 400);
      assert.match(bad.json.error, /malformed JSON/);
      const empty = await h.api('POST', HOOKS, '');
      assert.equal(empty.status, 400);
      const text = await h.api('POST', HOOKS, 'url=x', { 'content-type': 'text/plain' });
      assert.equal(text.status, 415);
      assert.match(text.json.error, /application\/json/);
      const form = await h.api('POST', `/api/v1/repos/${REPO}/secrets`, 'a=b', { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(form.status, 415);
      const noType = await call(h.url, 'POST', `/api/v1/repos/${REPO}/issues/bulk`, '[]', { 'content-type': '' });
      assert.equal(noType.status, 415);
      const charset = await h.api('POST', `/api/v1/repos/${REPO}/issues/bulk`, '[]', { 'content-type': 'application/json; charset=utf-8' });
      assert.equal(charset.status, 201);
    });

    it('413 above the body limit, declared or streamed, and keeps serving', async () => {
      const big = JSON.stringify({ url: 'http://x.test', content_type: 'json', events: ['push'], pad: 'x'.repeat(5000) });
      const declared = await h.api('POST', HOOKS, big);
      assert.equal(declared.status, 413);
      assert.match(declared.json.error, /4096-byte limit/);
      // Chunked: no length up front; the emulator stops reading at the cap.
      const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(h.url + HOOKS, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        for (let i = 0; i < 10; i++) req.write('x'.repeat(1000));
        // Never ended: the answer must not wait for the rest.
      });
      assert.equal(streamed.status, 413);
      assert.match(JSON.parse(streamed.body).error, /limit/);
      assert.equal((await h.api('GET', HOOKS)).status, 200);
    });
  });

  describe('routes', () => {
    it('404 for unknown routes and ids, 405 with Allow for a wrong method', async () => {
      const r = await h.api('GET', '/api/v1/repos/acme/widgets/nothing');
      assert.equal(r.status, 404);
      assert.match(r.json.error, /no such endpoint/);
      assert.equal((await h.api('GET', '/')).status, 404);
      assert.equal((await h.api('GET', '/api/v1/repos/acme%2Fx/widgets/webhooks')).status, 404, 'a slash inside a name');
      assert.equal((await h.api('GET', '/api/v1/repos/../widgets/webhooks')).status, 404);
      assert.equal((await h.api('GET', '/api/v1/repos/a%20b/widgets/webhooks')).status, 404);
      assert.equal((await h.api('POST', '/api/v1/webhooks/999/ping')).status, 404);
      assert.equal((await h.api('GET', '/api/v1/webhooks/999/deliveries')).status, 404);
      const w = await addHook(h, REPO, rx.url, ['push']);
      assert.equal((await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries/nope`)).status, 404);
      assert.equal((await h.api('POST', `/api/v1/webhooks/${w.id}/deliveries/nope/retry`)).status, 404);

      const m1 = await h.api('GET', `${HOOKS}/${w.id}`);
      assert.equal(m1.status, 405);
      assert.equal(m1.headers.allow, 'PATCH, DELETE');
      const m2 = await h.api('DELETE', HOOKS);
      assert.deepEqual([m2.status, m2.headers.allow], [405, 'GET, POST']);
      assert.equal((await h.api('GET', `/api/v1/webhooks/${w.id}/ping`)).status, 405);
      assert.equal((await h.api('PUT', `/api/v1/repos/${REPO}/secrets`, {})).status, 405);
      assert.equal((await h.api('GET', `/api/v1/repos/${REPO}/issues/bulk`)).status, 405);
    });
  });

  describe('issues bulk', () => {
    const issue = (n: number, extra: Record<string, unknown> = {}) => ({
      number: n,
      title: `Issue ${n}`,
      body: 'text',
      labels: ['bug', { name: 'ui' }],
      assignees: ['dana'],
      state: 'open',
      ...extra,
    });

    it('imports (201 { imported, replaced, issues }); a number imported again replaces the earlier record and is counted', async () => {
      const r = await h.api('POST', `/api/v1/repos/${REPO}/issues/bulk`, [issue(2), issue(1, { state: 'closed' })]);
      assert.equal(r.status, 201);
      assert.deepEqual(r.json, { imported: 2, replaced: 0, issues: [{ number: 2 }, { number: 1 }] });
      const again = await h.api('POST', `/api/v1/repos/${REPO}/issues/bulk`, [issue(2, { title: 'Renamed' }), issue(3)]);
      assert.deepEqual(again.json, { imported: 2, replaced: 1, issues: [{ number: 2 }, { number: 3 }] }, 'issue 2 existed and was replaced');
      const stored = await h.api('GET', `/_emulator/repos/${REPO}/issues`);
      assert.deepEqual(
        stored.json.map((i: { number: number; title: string; state: string }) => [i.number, i.title, i.state]),
        [
          [1, 'Issue 1', 'closed'],
          [2, 'Renamed', 'open'],
          [3, 'Issue 3', 'open'],
        ],
      );
    });

    it('takes a gh CLI export: state in any case (stored lower case), body null, labels and assignees missing, extra fields ignored', async () => {
      const exported = [
        { number: 7, title: 'Crash on start', body: null, state: 'OPEN', url: 'https://example.test/7', createdAt: '2026-01-01T00:00:00Z' },
        { number: 8, title: 'Typo', body: 'fix it', labels: [{ name: 'docs' }], assignees: [{ login: 'dana' }], state: 'Closed' },
      ];
      const r = await h.api('POST', `/api/v1/repos/${REPO}/issues/bulk`, exported);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual((await h.api('GET', `/_emulator/repos/${REPO}/issues`)).json, [
        { number: 7, title: 'Crash on start', body: '', labels: [], assignees: [], state: 'open' },
        { number: 8, title: 'Typo', body: 'fix it', labels: [{ name: 'docs' }], assignees: [{ login: 'dana' }], state: 'closed' },
      ]);
    });

    const bad: [string, unknown, string | undefined, RegExp][] = [
      ['not an array', { issues: [] }, undefined, /JSON array/],
      ['a record not an object', [issue(1), 'x'], '[1]', /^record 2: must be an object/],
      [
        'title missing',
        [issue(1), issue(2), issue(3), issue(4, { title: undefined })],
        '[3].title',
        /^record 4 \(issue #4\): title must be a non-empty string, got nothing/,
      ],
      ['title blank', [issue(1, { title: '  ' })], '[0].title', /^record 1 \(issue #1\): title/],
      ['number a string', [issue(1, { number: '1' })], '[0].number', /^record 1: number must be a positive integer, got "1"/],
      ['number zero', [issue(0)], '[0].number', /^record 1: number/],
      ['duplicate number', [issue(5), issue(5)], '[1].number', /^record 2 \(issue #5\): number 5 repeats record 1/],
      ['body a number', [issue(1, { body: 5 })], '[0].body', /body must be a string or null/],
      ['labels a string', [issue(1, { labels: 'bug' })], '[0].labels', /labels must be an array/],
      ['assignees an object', [issue(1, { assignees: { login: 'dana' } })], '[0].assignees', /assignees must be an array/],
      [
        'state unknown',
        [issue(1), issue(9, { state: 'merged' })],
        '[1].state',
        /^record 2 \(issue #9\): state must be "open" or "closed" \(any case\), got "merged"/,
      ],
      ['state missing', [issue(1, { state: undefined })], '[0].state', /state must be/],
    ];
    for (const [name, body, field, message] of bad) {
      it(`400 ${name}${field ? ` (field ${field})` : ''}, and nothing is imported`, async () => {
        const r = await h.api('POST', `/api/v1/repos/${REPO}/issues/bulk`, body);
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.field, field);
        assert.match(r.json.error, message);
        assert.deepEqual((await h.api('GET', `/_emulator/repos/${REPO}/issues`)).json, []);
      });
    }
  });

  describe('secrets', () => {
    it('creates (201 { name, protected }, never the value); the same name again answers 200', async () => {
      const r = await h.api('POST', `/api/v1/repos/${REPO}/secrets`, { name: 'DEPLOY_KEY', value: 'v3ry-s3cret', protected: true });
      assert.equal(r.status, 201);
      assert.deepEqual(r.json, { name: 'DEPLOY_KEY', protected: true });
      const again = await h.api('POST', `/api/v1/repos/${REPO}/secrets`, { name: 'DEPLOY_KEY', value: 'other' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.json, { name: 'DEPLOY_KEY', protected: false });
      const listed = await h.api('GET', `/_emulator/repos/${REPO}/secrets`);
      assert.deepEqual(
        listed.json.map((s: { name: string }) => s.name),
        ['DEPLOY_KEY'],
      );
      assert.ok(!listed.text.includes('v3ry-s3cret') && !listed.text.includes('other'));
      assert.ok(!h.logs.join('\n').includes('v3ry-s3cret'));
    });

    const bad: [string, unknown, string | undefined][] = [
      ['name missing', { value: 'v' }, 'name'],
      ['name with a dash', { name: 'MY-KEY', value: 'v' }, 'name'],
      ['name starting with a digit', { name: '1KEY', value: 'v' }, 'name'],
      ['value missing', { name: 'KEY' }, 'value'],
      ['value a number', { name: 'KEY', value: 1 }, 'value'],
      ['protected a string', { name: 'KEY', value: 'v', protected: 'yes' }, 'protected'],
      ['a string body', 'KEY', undefined],
    ];
    for (const [name, body, field] of bad) {
      it(`400 ${name}${field ? ` (field ${field})` : ''}`, async () => {
        const r = await h.api('POST', `/api/v1/repos/${REPO}/secrets`, body);
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.field, field);
      });
    }
  });

  describe('deliveries listing and events', () => {
    it('pages newest first with limit and offset; rejects bad values with the field', async () => {
      const w = await addHook(h, REPO, rx.url, ['push']);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const [d] = await fire(h, REPO, 'push');
        ids.push(d!.id);
        await h.attemptsOf(d!.id, 1);
      }
      const all = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
      assert.equal(all.status, 200);
      assert.deepEqual([all.json.total, all.json.successful, all.json.failed], [5, 5, 0]);
      assert.deepEqual(
        all.json.deliveries.map((d: { id: string }) => d.id),
        [...ids].reverse(),
      );
      const page = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries?limit=2&offset=1`);
      assert.deepEqual(
        page.json.deliveries.map((d: { id: string }) => d.id),
        [ids[3], ids[2]],
      );
      assert.equal(page.json.total, 5);
      assert.equal((await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries?limit=1000`)).json.deliveries.length, 5, 'clamped, not refused');
      for (const [q, field] of [
        ['limit=0', 'limit'],
        ['limit=abc', 'limit'],
        ['offset=-1', 'offset'],
        ['limit=1.5', 'limit'],
      ] as const) {
        const r = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries?${q}`);
        assert.deepEqual([r.status, r.json.field], [400, field], q);
      }
    });

    it('firing validates the event and the payload, naming the field', async () => {
      const r1 = await h.api('POST', `/_emulator/repos/${REPO}/events`, { event: 'deploy' });
      assert.deepEqual([r1.status, r1.json.field], [400, 'event']);
      const r2 = await h.api('POST', `/_emulator/repos/${REPO}/events`, {
        event: 'pull_request',
        payload: {
          event: 'pull_request',
          action: 'opened',
          number: 1,
          pull_request: { title: 't', body: 'b', state: 'open', head: { ref: 'x', sha: 1 }, base: { ref: 'm', sha: 's' } },
          repository: { name: 'w', full_name: 'a/w', url: 'u' },
          sender: { login: 'l', type: 'User' },
        },
      });
      assert.deepEqual([r2.status, r2.json.field], [400, 'payload.pull_request.head.sha']);
      assert.match(r2.json.error, /pull_request\.head\.sha: expected string/);
      const r3 = await h.api('POST', `/_emulator/repos/${REPO}/events`, { event: 'comment', payload: [1] });
      assert.deepEqual([r3.status, r3.json.field], [400, 'payload']);
      const r4 = await h.api('POST', `/_emulator/repos/${REPO}/events`, { event: 'comment', payload: { anything: 1 } });
      assert.deepEqual(r4.json, { event: 'comment', deliveries: [] }, 'no webhook subscribed: nothing delivered');
    });

    it('the failing endpoint answers the status asked for, and 400 for a bad one', async () => {
      assert.equal((await h.api('GET', '/_emulator/fail/500')).status, 500);
      assert.equal((await h.api('POST', '/_emulator/fail/418', { a: 1 })).status, 418);
      assert.equal((await h.api('POST', '/_emulator/fail/200', {})).status, 200);
      for (const s of ['abc', '99', '600', '5000']) assert.equal((await h.api('GET', `/_emulator/fail/${s}`)).status, 400, s);
    });
  });

  it('bad input of every kind leaves the accepted state intact and the server up', async () => {
    const w = await addHook(h, REPO, rx.url, ['push'], 'keep-me');
    const before = (await h.api('GET', HOOKS)).json;
    const attacks: [string, string, unknown, Record<string, string>?][] = [
      ['POST', HOOKS, '{'],
      ['POST', HOOKS, '\u0000\u0001'],
      ['PATCH', `${HOOKS}/${w.id}`, '{"events": [1, 2'],
      ['PATCH', `${HOOKS}/${w.id}`, { events: ['nope'] }],
      ['POST', HOOKS, 'x'.repeat(10_000)],
      ['POST', `/api/v1/repos/${REPO}/issues/bulk`, 'null'],
      ['POST', `/api/v1/repos/%E0%A4%A/widgets/webhooks`, {}],
      ['DELETE', `${HOOKS}/%ZZ`, undefined],
      ['POST', `/_emulator/repos/${REPO}/events`, '"push"'],
    ];
    for (const [method, path, body, headers] of attacks) {
      const r = await h.api(method, path, body, headers);
      assert.ok(r.status >= 400 && r.status < 500, `${method} ${path} → ${r.status} ${r.text}`);
      assert.equal(typeof r.json.error, 'string');
    }
    assert.deepEqual((await h.api('GET', HOOKS)).json, before);
  });
});

describe('emulator --documented-only (deliveriesEndpoint: false)', () => {
  it('answers 404 on the deliveries listing, an emulator extension, and still delivers, pings and retries', async () => {
    const rx = await startReceiver(500);
    const h = await start({ deliveriesEndpoint: false, timeScale: 60_000 });
    try {
      const hook = await addHook(h, REPO, rx.url, ['push']);
      const [fired] = await fire(h, REPO, 'push');
      assert.ok(fired, 'the push was delivered to the webhook');
      for (const path of [`/api/v1/webhooks/${hook.id}/deliveries`, `/api/v1/webhooks/${hook.id}/deliveries/${fired.id}`]) {
        const r = await h.api('GET', path);
        assert.equal(r.status, 404, path);
      }
      assert.equal((await h.api('POST', `/api/v1/webhooks/${hook.id}/ping`)).status, 202);
      assert.equal((await h.api('POST', `/api/v1/webhooks/${hook.id}/deliveries/${fired.id}/retry`)).status, 202);
    } finally {
      await h.close();
      await rx.close();
    }
  });
});
