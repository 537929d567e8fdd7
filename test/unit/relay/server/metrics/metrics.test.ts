// GET /metrics (issue 23 §2): scraped over real HTTP from a relay receiving real deliveries; the
// numbers move with them. On the file store here; on JetStream in test/unit/nats/metrics.test.ts.
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import WebSocket from 'ws';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { metricsChoice } from '../../../../../relay/commands/relay';
import { BoundedLabels } from '../../../../../relay/server/metrics/tally';
import { targetLabel } from '../../../../../relay/server/metrics';
import { TOKEN_SUBPROTOCOL_PREFIX } from '../../../../../src/core/relay/protocol';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, ROOT, settled, signed, startTarget, tempDir, type TargetApp } from '../../support/helpers';
import { until } from '../../../../support/until';
import { sample, scrape, scrapeUntil } from '../../support/metricsText';

const SECRET = 'metrics-secret-0123456789';

describe('relay metrics (GET /metrics, prom-client)', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  let app: TargetApp;
  let down: TargetApp;

  before(async () => {
    app = await startTarget();
    down = await startTarget();
    down.status = 503;
    relay = await startRelay({
      port: 0,
      dataDir: tempDir(),
      secrets: [SECRET],
      forward: [app.url],
      channels: { flaky: { secrets: [SECRET], forward: [down.url] } },
      retrySchedule: [0, 3_600_000],
      maxBody: 1000,
    });
  });
  after(async () => {
    await relay.close();
    await app.close();
    await down.close();
  });

  it('needs the admin token on the relay port (401 without, no metric names leaked)', async () => {
    const r = await scrape(relay.metricsUrl!);
    assert.equal(r.status, 401);
    assert.doesNotMatch(r.text, /relay_/);
    assert.equal((await scrape(relay.metricsUrl!, 'wrong-token')).status, 401);
  });

  it('counts deliveries, bytes, refusals, forward attempts, the journal and the backlog as real deliveries arrive', async () => {
    const before = (await scrape(relay.metricsUrl!, relay.token)).text;
    const body = '{"action":"opened","n":1}';
    const hook = `${relay.url}/hooks/default`;
    const a = await post(hook, body, signed(SECRET, body, { 'x-service-event': 'push' }));
    const b = await post(hook, body, signed(SECRET, body));
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal((await post(hook, body, signed('another-secret-0123456789', body))).status, 401);
    assert.equal((await post(hook, 'x'.repeat(2000), signed(SECRET, 'x'))).status, 413);
    const flaky = await post(`${relay.url}/hooks/flaky`, body, signed(SECRET, body));
    await settled(relay.store, (a.json as { seq: number }).seq);
    await settled(relay.store, (b.json as { seq: number }).seq);
    const flakySeq = (flaky.json as { seq: number }).seq;
    await until(
      () => (relay.store.get(flakySeq)?.summary.forward[0]?.attempts ? true : undefined),
      (wake) => (relay.store.on('forward', wake), () => relay.store.off('forward', wake)),
    );

    const r = await scrape(relay.metricsUrl!, relay.token);
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/plain; version=0\.0\.4/);
    const moved = (name: string, labels: Record<string, string> = {}) => sample(r.text, name, labels) - sample(before, name, labels);
    assert.equal(moved('relay_deliveries_received_total', { channel: 'default', verification: 'verified' }), 2);
    assert.equal(moved('relay_deliveries_received_total', { channel: 'default', verification: 'rejected' }), 1);
    assert.equal(moved('relay_deliveries_received_total', { channel: 'flaky', verification: 'verified' }), 1);
    assert.equal(moved('relay_delivery_bytes_total', { channel: 'default' }), 3 * body.length);
    assert.equal(moved('relay_requests_rejected_total', { reason: 'signature' }), 1);
    assert.equal(moved('relay_requests_rejected_total', { reason: 'too-large' }), 1);
    assert.equal(moved('relay_forward_attempts_total', { target: app.url, outcome: 'ok' }), 2);
    assert.equal(moved('relay_forward_attempts_total', { target: down.url, outcome: 'http_5xx' }), 1);
    assert.equal(moved('relay_forward_attempt_seconds_count', { target: app.url }), 2);
    assert.equal(sample(r.text, 'relay_forward_pending', { target: down.url }), 1);
    assert.equal(sample(r.text, 'relay_forward_pending', { target: app.url }), 0);
    // Three accepted deliveries waited for their group commit (the rejected one is journaled too).
    assert.equal(moved('relay_journal_append_seconds_count'), 3);
    assert.ok(moved('relay_journal_fsync_seconds_count') >= 1);
    assert.ok(moved('relay_journal_batch_records_sum') >= 4);
    assert.equal(sample(r.text, 'relay_last_seq'), relay.store.lastSeq);
    // process metrics (prom-client's defaults)
    assert.ok(sample(r.text, 'process_cpu_user_seconds_total') > 0);
    assert.ok(sample(r.text, 'process_resident_memory_bytes') > 0);
  });

  it('counts API token refusals and shows connected subscribers', async () => {
    const before = (await scrape(relay.metricsUrl!, relay.token)).text;
    const res = await request(`${relay.url}/api/status`, { headers: { authorization: 'Bearer nope' } });
    await res.body.dump();
    assert.equal(res.statusCode, 401);
    const ws = new WebSocket(`${relay.url.replace('http', 'ws')}/ws`, [`${TOKEN_SUBPROTOCOL_PREFIX}${relay.token}`]);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    try {
      const r = (await scrape(relay.metricsUrl!, relay.token)).text;
      assert.equal(sample(r, 'relay_requests_rejected_total', { reason: 'token' }) - sample(before, 'relay_requests_rejected_total', { reason: 'token' }), 1);
      assert.equal(sample(r, 'relay_subscribers_connected'), 1);
    } finally {
      ws.close();
    }
  });

  it('serves them on a listener of their own with --metrics-listen (no token there, none on the relay port), and not at all when off', async () => {
    const own = await startRelay({ port: 0, dataDir: tempDir(), metrics: { port: 0 } });
    try {
      assert.notEqual(new URL(own.metricsUrl!).port, String(own.port));
      const r = await scrape(own.metricsUrl!);
      assert.equal(r.status, 200);
      assert.match(r.text, /relay_deliveries_received_total/);
      assert.equal((await scrape(`${own.url}/metrics`, own.token)).status, 404);
      assert.equal((await scrape(own.metricsUrl!.replace('/metrics', '/other'))).status, 404);
    } finally {
      await own.close();
    }
    const off = await startRelay({ port: 0, dataDir: tempDir(), metrics: false });
    try {
      assert.equal(off.metricsUrl, undefined);
      assert.equal((await scrape(`${off.url}/metrics`, off.token)).status, 404);
    } finally {
      await off.close();
    }
  });

  it('has every relay_ metric that docs/monitoring (alerts, dashboard) uses', async () => {
    const text = (await scrape(relay.metricsUrl!, relay.token)).text;
    const served = new Set([...text.matchAll(/^# TYPE (\w+)/gm)].map((m) => m[1]));
    const docs = ['relay-alerts.yml', 'grafana-dashboard.json'].map((f) => readFileSync(join(ROOT, 'docs/monitoring', f), 'utf8')).join('\n');
    const used = new Set([...docs.matchAll(/\b(relay_\w+?)(?:_bucket|_sum|_count)?\b/g)].map((m) => m[1]!));
    const missing = [...used].filter((n) => !served.has(n) && !n.startsWith('relay_jetstream_')); // those: test/unit/nats/metrics.test.ts
    assert.deepEqual(missing, []);
    assert.ok(used.size >= 10);
  });

  it('counts allow-list (403) and rate-limit (429) refusals', async () => {
    const guarded = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], allowCidr: ['203.0.113.0/24'], metrics: { port: 0 } });
    const limited = await startRelay({
      port: 0,
      dataDir: tempDir(),
      secrets: [SECRET],
      rejectLimits: { perSource: { burst: 1, perMinute: 1 }, total: { burst: 10, perMinute: 1 } },
    });
    try {
      const body = '{"x":1}';
      assert.equal((await post(`${guarded.url}/hooks/default`, body, signed(SECRET, body))).status, 403);
      assert.equal(sample((await scrape(guarded.metricsUrl!)).text, 'relay_requests_rejected_total', { reason: 'allow-list' }), 1);
      const forged = signed('another-secret-0123456789', body);
      assert.equal((await post(`${limited.url}/hooks/default`, body, forged)).status, 401);
      assert.equal((await post(`${limited.url}/hooks/default`, body, forged)).status, 429);
      const text = (await scrape(limited.metricsUrl!, limited.token)).text;
      assert.equal(sample(text, 'relay_requests_rejected_total', { reason: 'signature' }), 1);
      assert.equal(sample(text, 'relay_requests_rejected_total', { reason: 'rate-limit' }), 1);
      assert.equal(sample(text, 'relay_deliveries_received_total', { channel: 'default', verification: 'rejected' }), 1, 'the refused one is not stored');
    } finally {
      await guarded.close();
      await limited.close();
    }
  });

  it('parses --metrics-listen and --no-metrics', () => {
    assert.deepEqual(metricsChoice('9464', undefined), { metrics: { host: '127.0.0.1', port: 9464 } });
    assert.deepEqual(metricsChoice('0.0.0.0:9464', undefined), { metrics: { host: '0.0.0.0', port: 9464 } });
    assert.deepEqual(metricsChoice('[::1]:9464', undefined), { metrics: { host: '::1', port: 9464 } });
    assert.deepEqual(metricsChoice(undefined, true), { metrics: false });
    assert.deepEqual(metricsChoice(undefined, undefined), {});
    assert.throws(() => metricsChoice('host:', undefined), /\[HOST:\]PORT/);
    assert.throws(() => metricsChoice('70000', undefined), /0 to 65535/);
    assert.throws(() => metricsChoice('9464', true), /exclude/);
  });

  it('reserves labels for configured and API channels: 200 made-up names first leave them their own (issue 36.10)', async () => {
    const app = await startTarget();
    const slack = `${app.url}/services/T0123ABCD/B0123ABCD/abcdEFGH1234ijklMNOP5678`;
    const flooded = await startRelay({ port: 0, dataDir: tempDir(), metrics: { port: 0 }, channels: { billing: { forward: [slack] } } });
    try {
      // Unauthenticated posts to 200 names nobody configured take every open label.
      for (let i = 0; i < 200; i++) assert.equal((await post(`${flooded.url}/hooks/junk-${i}`, '{}')).status, 200);
      const created = await request(`${flooded.url}/api/channels`, {
        method: 'POST',
        headers: { authorization: `Bearer ${flooded.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'late', secrets: [SECRET] }),
      });
      await created.body.dump();
      assert.equal(created.statusCode, 201);
      const body = '{"n":1}';
      assert.equal((await post(`${flooded.url}/hooks/late`, body, signed(SECRET, body))).status, 200);
      assert.equal((await post(`${flooded.url}/hooks/billing`, body)).status, 200);
      assert.equal((await post(`${flooded.url}/hooks/junk-extra`, body)).status, 200);
      const attempted = (t: string) => /relay_forward_attempts_total\{target="[^"]*\/services\//.test(t);
      const text = (await scrapeUntil(flooded.metricsUrl!, undefined, attempted, 'the forward to the Slack-style target counted')).text;
      const received = (channel: string, verification: string) => sample(text, 'relay_deliveries_received_total', { channel, verification });
      assert.equal(received('late', 'verified'), 1, 'an API channel created after the flood has its own label');
      assert.equal(received('billing', 'unverified'), 1, 'so has a configured one');
      assert.equal(received('_other', 'unverified'), 1, 'the 201st made-up name shares _other');
      assert.ok(!text.includes('abcdEFGH1234ijklMNOP5678'), 'the Slack-style path secret is not a label');
      assert.match(text, /relay_forward_attempts_total\{target="http:\/\/127\.0\.0\.1:\d+\/webhook\/services\/T0123ABCD\/B0123ABCD\/\[redacted\]"/);
    } finally {
      await flooded.close();
      await app.close();
    }
  });

  it('keeps label values bounded and free of credentials', () => {
    const labels = new BoundedLabels(2);
    assert.deepEqual(
      ['a', 'b', 'c', 'a', 'd'].map((x) => labels.of(x)),
      ['a', 'b', '_other', 'a', '_other'],
    );
    assert.equal(targetLabel('https://user:pa55@app.example:8443/hook?token=abc'), 'https://app.example:8443/hook');
  });
});
