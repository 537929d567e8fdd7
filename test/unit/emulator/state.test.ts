// The state file: written atomically with mode 0600, loaded at start, pending and interrupted
// attempts resume after a restart, a broken file is refused (and left alone), and the demo seed.
import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SECRET } from '../../../src/core/defaults';
import { EVENT_TYPES } from '../../../src/core/events';
import { verify } from '../../../src/core/signing';
import { startEmulator } from '../../../relay/emulator';
import { addHook, fire, start, startReceiver, tempDir, TOKEN, type Harness, type Receiver } from './helpers';

const REPO = 'acme/widgets';

describe('emulator state file', () => {
  let h: Harness | undefined;
  const receivers: Receiver[] = [];
  const receiver = async (mode: number | 'hang' = 200) => {
    const r = await startReceiver(mode);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const r of receivers.splice(0)) await r.close();
  });

  it('survives a restart: webhooks, deliveries, issues, secret names; mode 0600; no token or CI secret value', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const rx = await receiver(200);
    h = await start({ state, timeScale: 60_000 });
    const w = await addHook(h, REPO, rx.url, ['push'], 'hook-secret');
    const [d] = await fire(h, REPO, 'push');
    await h.attemptsOf(d!.id, 1);
    await h.api('POST', `/api/v1/repos/${REPO}/issues/bulk`, [{ number: 3, title: 't', body: 'b', labels: [], assignees: [], state: 'open' }]);
    await h.api('POST', `/api/v1/repos/${REPO}/secrets`, { name: 'API_KEY', value: 'ci-secret-value', protected: true });
    const hooks = (await h.api('GET', `/api/v1/repos/${REPO}/webhooks`)).json;
    const deliveries = (await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json;
    await h.close();
    h = undefined;

    assert.equal(statSync(state).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['state.json'], 'no temp file left behind');
    const text = readFileSync(state, 'utf8');
    assert.ok(!text.includes(TOKEN), 'the API token is not stored');
    assert.ok(!text.includes('ci-secret-value'), 'a CI secret value is not stored');

    h = await start({ state, timeScale: 60_000 });
    assert.deepEqual((await h.api('GET', `/api/v1/repos/${REPO}/webhooks`)).json, hooks);
    assert.deepEqual((await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json, deliveries);
    assert.equal((await h.api('GET', `/_emulator/repos/${REPO}/issues`)).json[0].number, 3);
    assert.deepEqual(
      (await h.api('GET', `/_emulator/repos/${REPO}/secrets`)).json.map((s: { name: string; protected: boolean }) => [s.name, s.protected]),
      [['API_KEY', true]],
    );
    const w2 = await addHook(h, REPO, rx.url, ['issue']);
    assert.notEqual(w2.id, w.id, 'ids are not reused');
    // The secret survived too: a new delivery is still signed with it.
    const [d2] = await fire(h, REPO, 'push');
    await h.attemptsOf(d2!.id, 1);
    const last = rx.received[rx.received.length - 1]!;
    assert.ok(verify(last.body, last.headers['x-service-signature'] as string, ['hook-secret']).ok);
  });

  it('a pending retry resumes after a restart when it falls due', async () => {
    const state = join(tempDir(), 'state.json');
    const rx = await receiver(500);
    let now = Date.UTC(2026, 10, 22, 20, 0, 0);
    h = await start({ state, timeScale: 1, now: () => new Date(now) });
    const w = await addHook(h, REPO, rx.url, ['push']);
    const [d] = await fire(h, REPO, 'push');
    const first = await h.attemptsOf(d!.id, 1);
    assert.equal(first.next_attempt_at, '2026-11-22T20:01:00.000Z', 'attempt 2 is a minute later');
    await h.close();

    rx.mode = 200;
    now += 2 * 60_000; // the emulator comes back two minutes later: attempt 2 is overdue
    h = await start({ state, timeScale: 1, now: () => new Date(now) });
    const record = await h.attemptsOf(d!.id, 2);
    assert.deepEqual(
      record.attempts.map((a) => [a.at, a.status]),
      [
        ['2026-11-22T20:00:00Z', 500],
        ['2026-11-22T20:02:00Z', 200],
      ],
    );
    assert.equal(record.success, true);
    assert.equal(record.next_attempt_at, null);
    assert.equal((await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`)).json.successful, 1);
  });

  it('an attempt cut off by close() is not recorded and runs again after the restart', async () => {
    const state = join(tempDir(), 'state.json');
    const rx = await receiver('hang');
    h = await start({ state, timeScale: 1 });
    await addHook(h, REPO, rx.url, ['push']);
    const [d] = await fire(h, REPO, 'push');
    await rx.signal.until(() => rx.received.length === 1, 'the attempt in flight');
    await h.close();
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    const stored = Object.values(saved.deliveries as Record<string, { id: string; attempts: unknown[]; next_attempt_at: string | null }[]>).flat()[0]!;
    assert.equal(stored.id, d!.id);
    assert.deepEqual(stored.attempts, []);
    assert.ok(stored.next_attempt_at);

    rx.mode = 200;
    h = await start({ state, timeScale: 1 });
    const record = await h.attemptsOf(d!.id, 1);
    assert.equal(record.success, true);
    assert.equal(rx.received.length, 2);
    assert.equal(rx.received[1]!.headers['x-service-delivery'], d!.id);
  });

  it('a failed write is logged and retried; the emulator keeps serving and writes once it can', async () => {
    const dir = join(tempDir(), 'sub');
    mkdirSync(dir);
    const state = join(dir, 'state.json');
    h = await start({ state });
    rmSync(dir, { recursive: true });
    const w = await addHook(h, REPO, 'http://127.0.0.1:9/x', ['push']);
    await h.signal.until(() => h!.logs.some((l) => l.includes('could not write the state file')), 'the failed write in the log');
    assert.equal((await h.api('GET', `/api/v1/repos/${REPO}/webhooks`)).json[0].id, w.id, 'the change is kept in memory');
    mkdirSync(dir);
    await h.close();
    h = undefined;
    assert.equal(JSON.parse(readFileSync(state, 'utf8')).webhooks[0].id, w.id, 'written on close');
  });

  it('refuses to start on a broken state file and leaves it as it was', async () => {
    const dir = tempDir();
    for (const [name, content] of [
      ['bad-json.json', '{"version": 1, '],
      ['wrong-shape.json', '{"version": 2, "webhooks": {}}'],
      ['an-array.json', '[]'],
    ]) {
      const file = join(dir, name!);
      writeFileSync(file, content!);
      await assert.rejects(startEmulator({ port: 0, token: TOKEN, state: file }), /state file .* (not valid JSON|not a valid emulator state)/);
      assert.equal(readFileSync(file, 'utf8'), content);
    }
  });

  describe('refuses a state file of the wrong shape, naming the bad value, and leaves it alone', () => {
    const hook = { id: '1', repo: 'acme/widgets', url: 'http://127.0.0.1:9/h', content_type: 'json', events: ['push'], created_at: '2026-11-23T12:00:00Z' };
    const delivery = {
      id: 'd1',
      webhook_id: '1',
      event: 'push',
      delivered_at: '2026-11-23T12:00:00Z',
      success: false,
      status: null,
      attempts: [],
      next_attempt_at: null,
      redelivery: false,
      request: { headers: { 'Content-Type': 'application/json' }, body: '{}' },
      auto_attempts: 0,
    };
    const issue = { number: 1, title: 't', body: '', labels: [], assignees: [], state: 'open' };
    const base = {
      version: 1,
      next_webhook_id: 2,
      repos: { 'acme/widgets': { issues: [issue], secrets: [] } },
      webhooks: [hook],
      deliveries: { '1': [delivery] },
    };
    const cases: [string, unknown, RegExp][] = [
      ['a null webhook', { ...base, webhooks: [null] }, /webhooks\[0\] must be an object/],
      ['events not an array', { ...base, webhooks: [{ ...hook, events: 'push' }] }, /webhooks\[0\]\.events/],
      ['an unknown event', { ...base, webhooks: [{ ...hook, events: ['deploy'] }] }, /webhooks\[0\]\.events\[0\]/],
      ['a webhook without a url', { ...base, webhooks: [{ ...hook, url: undefined }] }, /webhooks\[0\]\.url/],
      ['a link-local webhook url', { ...base, webhooks: [{ ...hook, url: 'http://169.254.169.254/latest' }] }, /webhooks\[0\]\.url.*link-local/],
      ['two webhooks with one id', { ...base, next_webhook_id: 3, webhooks: [hook, hook] }, /webhooks\[1\]\.id.*repeats/],
      ['next_webhook_id not above the ids', { ...base, next_webhook_id: 1 }, /next_webhook_id/],
      ['a null delivery', { ...base, deliveries: { '1': [null] } }, /deliveries\["1"\]\[0\] must be an object/],
      ['a delivery without request', { ...base, deliveries: { '1': [{ ...delivery, request: undefined }] } }, /deliveries\["1"\]\[0\]\.request/],
      ['a delivery under another webhook', { ...base, deliveries: { '1': [{ ...delivery, webhook_id: '2' }] } }, /webhook_id/],
      ['deliveries of an unknown webhook', { ...base, deliveries: { '1': [], '7': [] } }, /deliveries\["7"\].*no webhook 7/],
      ['issues null', { ...base, repos: { 'acme/widgets': { issues: null, secrets: [] } } }, /repos\["acme\/widgets"\]\.issues/],
      ['an issue with state merged', { ...base, repos: { 'acme/widgets': { issues: [{ ...issue, state: 'merged' }], secrets: [] } } }, /issues\[0\]\.state/],
      ['a secret without a name', { ...base, repos: { 'acme/widgets': { issues: [], secrets: [{ protected: false }] } } }, /secrets\[0\]\.name/],
    ];
    for (const [name, state, message] of cases) {
      it(name, async () => {
        const file = join(tempDir(), 'state.json');
        const content = JSON.stringify(state);
        writeFileSync(file, content);
        await assert.rejects(startEmulator({ port: 0, token: TOKEN, state: file }), (err: Error) => {
          assert.match(err.message, /the state file .* is not a valid emulator state/);
          assert.match(err.message, message);
          return true;
        });
        assert.equal(readFileSync(file, 'utf8'), content);
      });
    }

    it('the well-formed base loads, with its issues sorted by number', async () => {
      const file = join(tempDir(), 'state.json');
      const two = { ...issue, number: 2 };
      writeFileSync(file, JSON.stringify({ ...base, repos: { 'acme/widgets': { issues: [two, issue], secrets: [] } } }));
      h = await start({ state: file });
      assert.deepEqual(
        (await h.api('GET', '/_emulator/repos/acme/widgets/issues')).json.map((i: { number: number }) => i.number),
        [1, 2],
      );
      assert.equal((await h.api('GET', '/api/v1/repos/acme/widgets/webhooks')).status, 200);
    });
  });

  it('demo: seeds acme/widgets with the relay webhook and the failing one, fires a push, and seeds only once', async () => {
    const state = join(tempDir(), 'state.json');
    const relay = await receiver(200);
    h = await start({ state, demo: true, demoRelayUrl: relay.url, timeScale: 60_000 });
    const hooks = (await h.api('GET', `/api/v1/repos/${REPO}/webhooks`)).json as { id: string; url: string; events: string[]; secret_set: boolean }[];
    assert.equal(hooks.length, 2);
    const [toRelay, failing] = hooks as [(typeof hooks)[0], (typeof hooks)[0]];
    assert.equal(toRelay.url, relay.url);
    assert.deepEqual(toRelay.events, [...EVENT_TYPES], 'the relay webhook subscribes to every event type');
    assert.equal(toRelay.secret_set, true);
    assert.equal(failing.url, `${h.url}/_emulator/fail/500`);
    assert.deepEqual(failing.events, ['push']);

    await relay.signal.until(() => relay.received.length >= 1, 'the demo push at the relay');
    const got = relay.received[0]!;
    assert.equal(got.headers['x-service-event'], 'push');
    assert.ok(verify(got.body, got.headers['x-service-signature'] as string, [DEMO_SECRET]).ok);
    const failed = await h.signal.until(
      () => h!.attempts.find((a) => a.record.webhook_id === failing.id && a.record.attempts.length === 4)?.record,
      'four failed attempts',
    );
    assert.deepEqual(
      failed.attempts.map((a) => a.status),
      [500, 500, 500, 500],
    );
    const ping = await h.api('POST', `/api/v1/webhooks/${failing.id}/ping`);
    assert.deepEqual([ping.json.event, ping.json.status], ['ping', 500]);
    await h.close();

    h = await start({ state, demo: true, demoRelayUrl: relay.url, timeScale: 60_000 });
    assert.equal((await h.api('GET', `/api/v1/repos/${REPO}/webhooks`)).json.length, 2, 'not seeded twice');
    assert.equal(relay.received.length, 1, 'no second demo push');
  });
});
