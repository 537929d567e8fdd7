// Tree labels, descriptions and tooltips (src/core/tree): URLs shown without scheme, credentials or
// query, never a secret, delivery rows ✓/✗ with status, findings as sentences, one UTC timestamp format.
import { strict as assert } from 'node:assert';
import {
  deliveriesLabel,
  deliveriesTooltip,
  deliveryLabel,
  deliveryTooltip,
  eventsDescription,
  safeUrl,
  sentence,
  toSecond,
  webhookLabel,
  webhookTooltip,
  type WebhookView,
} from '../../../../src/core/tree';

const hook: WebhookView = {
  id: 'wh_1',
  url: 'https://user:pa55@hooks.example.com:8443/in/ci?token=abc',
  content_type: 'json',
  events: ['push', 'pull_request'],
  secret_set: true,
  created_at: '2026-11-22T20:58:10.123Z',
};

describe('tree labels', () => {
  it('counts label', () => {
    assert.equal(deliveriesLabel({ total: 12, successful: 10, failed: 2 }), 'Deliveries 12 · ✓ 10 · ✗ 2');
    assert.equal(deliveriesLabel({ total: 0, successful: 0, failed: 0 }), 'Deliveries 0 · ✓ 0 · ✗ 0');
    // Issue 36 item 20: a webhook whose deliveries nothing here can read (the demo's failing one) is not "Deliveries 0".
    assert.equal(deliveriesLabel({ total: 0, successful: 0, failed: 0, unknown: true }), "Deliveries: in the service's web UI");
    assert.match(deliveriesTooltip({ total: 0, successful: 0, failed: 0, unknown: true }, 'relay'), /count is unknown here \(not 0\)/);
  });

  it('webhook label from its URL: host and path, no scheme, credentials or query', () => {
    assert.equal(webhookLabel(hook.url), 'hooks.example.com:8443/in/ci');
    assert.equal(webhookLabel('http://127.0.0.1:8788/hooks/default'), '127.0.0.1:8788/hooks/default');
    assert.equal(webhookLabel('https://example.com/'), 'example.com');
    assert.equal(webhookLabel('not a url'), 'not a url');
  });

  it('description lists the events', () => {
    assert.equal(eventsDescription(hook.events), 'push, pull_request');
    assert.equal(eventsDescription([]), 'no events');
  });

  it('tooltip shows content type and whether a secret is set, never the secret or URL credentials', () => {
    const t = webhookTooltip(hook);
    assert.match(t, /Content type: json/);
    assert.match(t, /Secret: set/);
    assert.doesNotMatch(t, /pa55|token=abc/);
    assert.match(webhookTooltip({ ...hook, secret_set: false }), /Secret: not set/);
    // even if a record carried a secret field by mistake, it is not read
    const leaky = { ...hook, secret: 'demo-secret' } as WebhookView;
    assert.doesNotMatch(webhookTooltip(leaky), /demo-secret/);
  });

  it('safeUrl strips user info and query', () => {
    assert.equal(safeUrl(hook.url), 'https://hooks.example.com:8443/in/ci?…');
  });

  it('timestamps to the second, UTC', () => {
    assert.equal(toSecond('2026-11-22T20:58:10.987Z'), '2026-11-22 20:58:10');
    assert.equal(toSecond('2026-11-22T21:58:10+01:00'), '2026-11-22 20:58:10');
    assert.equal(toSecond('garbage'), 'garbage');
  });

  it('delivery rows: ✓, or ✗ with the HTTP status when failed', () => {
    const base = { id: 'd1', event: 'push', delivered_at: '2026-11-22T20:58:10Z' };
    assert.equal(deliveryLabel({ ...base, success: true, status: 200 }), '2026-11-22 20:58:10 ✓');
    assert.equal(deliveryLabel({ ...base, success: false, status: 500 }), '2026-11-22 20:58:10 ✗ 500');
    assert.equal(deliveryLabel({ ...base, success: false, status: null, error: 'ECONNREFUSED' }), '2026-11-22 20:58:10 ✗ no response');
  });

  it('delivery tooltip names its source', () => {
    const d = { id: 'd1', event: 'push', delivered_at: '2026-11-22T20:58:10Z', success: false, status: 502 };
    assert.match(deliveryTooltip(d, 'service'), /from the service's deliveries endpoint/);
    assert.match(deliveryTooltip(d, 'relay'), /from the relay journal/);
    assert.match(deliveryTooltip(d, 'service'), /HTTP 502/);
  });

  it('findings read as sentences', () => {
    assert.equal(sentence('the X-Service-Signature header is missing'), 'The X-Service-Signature header is missing.');
    assert.equal(sentence('Already one.'), 'Already one.');
    assert.equal(sentence('  '), '');
  });

  it('one timestamp format everywhere: to the second, UTC, no T, no milliseconds', () => {
    assert.equal(toSecond('2026-11-23T11:57:07.123Z'), '2026-11-23 11:57:07');
  });
});
