// Random request bodies (fast-check) against every body-taking endpoint: the emulator answers a
// 2xx or a 4xx with { error }, never a 5xx, and only accepted requests change its state.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { EVENT_TYPES } from '../../../src/core/events';
import { start, type Harness } from './helpers';

const REPO = 'acme/widgets';

describe('emulator under random bodies', function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    h = await start({ timeScale: 60_000 });
    const first = await h.api('POST', `/api/v1/repos/${REPO}/webhooks`, { url: 'http://127.0.0.1:9/', content_type: 'json', events: ['push'] });
    assert.equal(first.json.id, '1', 'the webhook the PATCH runs target');
    await h.api('POST', '/api/v1/repos/acme/events/webhooks', { url: 'http://127.0.0.1:9/', content_type: 'json', events: [...EVENTS] });
  });
  after(async () => {
    await h.close();
  });

  // Values near the valid shapes (mostly valid field by field), plus arbitrary JSON and text.
  const mostly = <T>(good: fc.Arbitrary<T>, ...bad: fc.Arbitrary<unknown>[]) =>
    fc.oneof({ arbitrary: good as fc.Arbitrary<unknown>, weight: 4 }, ...bad.map((arbitrary) => ({ arbitrary, weight: 1 })));
  const EVENTS = EVENT_TYPES;
  const event = mostly(fc.constantFrom(...EVENTS), fc.constantFrom('ping', '', 'PUSH'));
  const nearWebhook = fc.record({
    // Valid URLs stay on this machine (a closed port): fired events must not reach the network.
    url: mostly(
      fc.webPath().map((path) => `http://127.0.0.1:9${path}`),
      fc.constantFrom('ftp://x', '/rel', 'http://', 'http://a b'),
      fc.jsonValue(),
    ),
    content_type: mostly(fc.constant('json'), fc.constant('application/json'), fc.jsonValue()),
    events: mostly(fc.uniqueArray(fc.constantFrom(...EVENTS), { minLength: 1 }), fc.array(event, { maxLength: 4 }), fc.jsonValue()),
    secret: mostly(fc.option(fc.string(), { nil: undefined }), fc.jsonValue()),
  });
  const nearIssue = fc.record({
    number: mostly(fc.integer({ min: 1, max: 50 }), fc.integer({ min: -2, max: 0 }), fc.jsonValue()),
    title: mostly(fc.string(), fc.jsonValue()),
    body: mostly(fc.string(), fc.jsonValue()),
    labels: mostly(fc.array(fc.string()), fc.jsonValue()),
    assignees: mostly(fc.array(fc.string()), fc.jsonValue()),
    state: mostly(fc.constantFrom('open', 'closed'), fc.constant('merged'), fc.jsonValue()),
  });
  const nearSecret = fc.record({
    name: mostly(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/), fc.string(), fc.jsonValue()),
    value: mostly(fc.string(), fc.jsonValue()),
    protected: mostly(fc.option(fc.boolean(), { nil: undefined }), fc.jsonValue()),
  });
  const nearFire = fc.record({ event, payload: mostly(fc.constant(undefined), fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())) });

  const targets: [string, string, fc.Arbitrary<unknown>][] = [
    ['POST', `/api/v1/repos/${REPO}/webhooks`, mostly(nearWebhook, fc.jsonValue())],
    ['PATCH', `/api/v1/repos/${REPO}/webhooks/1`, mostly(nearWebhook, fc.jsonValue())],
    ['POST', `/api/v1/repos/${REPO}/issues/bulk`, mostly(fc.array(nearIssue, { maxLength: 3 }), fc.jsonValue())],
    ['POST', `/api/v1/repos/${REPO}/secrets`, mostly(nearSecret, fc.jsonValue())],
    // Another repository with one webhook, so each accepted event makes one delivery.
    ['POST', '/_emulator/repos/acme/events/events', mostly(nearFire, fc.jsonValue())],
  ];

  const snapshot = async () =>
    (
      await Promise.all([`/api/v1/repos/${REPO}/webhooks`, `/_emulator/repos/${REPO}/issues`, `/_emulator/repos/${REPO}/secrets`].map((p) => h.api('GET', p)))
    ).map((r) => r.text);

  for (const [method, path, arb] of targets) {
    it(`${method} ${path}: a 2xx or a 4xx with an error message, never a 5xx`, async () => {
      const seen = { accepted: 0, refused: 0 };
      await fc.assert(
        fc.asyncProperty(
          mostly(
            arb.map((v) => JSON.stringify(v) ?? 'null'),
            fc.string(),
          ) as fc.Arbitrary<string>,
          async (text) => {
            const before = await snapshot();
            const r = await h.api(method, path, text);
            assert.ok(r.status < 500, `${r.status} ${r.text} for ${text}`);
            if (r.status >= 400) {
              seen.refused++;
              assert.equal(typeof r.json?.error, 'string', r.text);
              assert.deepEqual(await snapshot(), before, 'a refused request changes nothing');
            } else seen.accepted++;
          },
        ),
        { numRuns: 150 },
      );
      assert.ok(seen.accepted > 0 && seen.refused > 0, `both outcomes exercised: ${JSON.stringify(seen)}`);
    });
  }
});
