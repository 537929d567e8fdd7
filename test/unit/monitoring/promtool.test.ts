// Pins that docs/monitoring's prometheus.yml and relay-alerts.yml pass Prometheus's own checker
// (`promtool check config`, `promtool check rules`), and that a live relay's /metrics passes
// `promtool check metrics` on the file store and on JetStream (issue 41). Debian's prometheus
// package is installed when missing (./prometheus.ts).
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRelay, type RelayServer } from '../../../relay/server';
import { post, settled, signed, startTarget, tempDir, within, type TargetApp } from '../relay/support/helpers';
import { sample, scrape, scrapeUntil } from '../relay/support/metricsText';
import { relayOnNatsPerSuite } from '../nats/relayOnNats';
import { commentedJob, ensurePrometheus, promtool, shippedConfig, SHIPPED_CONFIG, SHIPPED_RULES, writeConfig } from './prometheus';

const SECRET = 'promtool-secret-0123456789';
const ADMIN = 'promtool-admin-token-0123456789';

describe('docs/monitoring checked by promtool', function () {
  this.timeout(60_000);
  before(function () {
    this.timeout(600_000); // apt-get install prometheus, once on a fresh machine
    ensurePrometheus();
  });

  it('prometheus.yml as shipped enables one scrape job; only the token file is the operator’s to make', async () => {
    const config = shippedConfig();
    assert.deepEqual(
      config.scrape_configs.map((j) => j.job_name),
      ['service-hooks-relay'],
    );
    assert.equal(config.scrape_configs[0]!.authorization?.credentials_file, '/etc/prometheus/service-hooks-relay.token');
    // As shipped, on a machine where the documented token file was not made, that is the only complaint.
    const asShipped = await promtool(['check', 'config', SHIPPED_CONFIG]);
    if (asShipped.code !== 0)
      assert.match(asShipped.out, /FAILED: error checking authorization credentials or bearer token file "\/etc\/prometheus\/service-hooks-relay\.token"/);
  });

  it('promtool check config passes with the token file made (job A), and with job B uncommented instead', async () => {
    const dir = tempDir('sh-promtool-');
    const token = join(dir, 'service-hooks-relay.token');
    writeFileSync(token, `${ADMIN}\n`, { mode: 0o600 });
    const a = shippedConfig();
    a.scrape_configs[0]!.authorization!.credentials_file = token;
    const r = await promtool(['check', 'config', writeConfig(dir, a)]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 1 rule files found/);

    const b = shippedConfig();
    b.scrape_configs = [commentedJob()];
    assert.deepEqual(b.scrape_configs[0]!.static_configs, [{ targets: ['127.0.0.1:9464'] }]);
    const rb = await promtool(['check', 'config', writeConfig(tempDir('sh-promtool-'), b)]);
    assert.equal(rb.code, 0, rb.out);
  });

  it('promtool check rules passes on relay-alerts.yml', async () => {
    const r = await promtool(['check', 'rules', SHIPPED_RULES]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 4 rules found/);
  });

  describe('promtool check metrics on a live relay', () => {
    describe('file store (in-process relay, real deliveries)', () => {
      let relay: RelayServer;
      let app: TargetApp;
      before(async () => {
        app = await startTarget();
        relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [app.url], maxBody: 1000 });
      });
      after(async () => {
        await relay?.close();
        await app?.close();
      });

      it('passes, with every kind of series present (labels, histograms, process metrics)', async () => {
        const body = '{"action":"opened"}';
        const ok = await post(`${relay.url}/hooks/default`, body, signed(SECRET, body));
        assert.equal(ok.status, 200);
        assert.equal((await post(`${relay.url}/hooks/default`, body, signed('another-secret-0123456789', body))).status, 401);
        await settled(relay.store, (ok.json as { seq: number }).seq);
        const r = await scrape(relay.metricsUrl!, relay.token);
        assert.equal(r.status, 200);
        assert.equal(sample(r.text, 'relay_forward_attempts_total', { target: app.url, outcome: 'ok' }), 1);
        assert.equal(sample(r.text, 'relay_store_ready'), 1);
        assert.match(r.text, /^nodejs_active_handles\{type="[^"]+"\} \d+$/m, 'the per-type process gauges stay');
        assert.match(r.text, /^process_cpu_user_seconds_total /m);
        const lint = await promtool(['check', 'metrics'], r.text);
        assert.equal(lint.code, 0, lint.out);
        assert.equal(lint.out.trim(), '');
      });
    });

    describe('JetStream store (relay process, real nats-server)', () => {
      const running = relayOnNatsPerSuite(ADMIN, ['--secret', SECRET]);

      it('passes, with the JetStream series present', async () => {
        const { relay, app } = running();
        const body = '{"action":"opened"}';
        assert.equal((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).status, 200);
        const log = () => `relay log:\n${relay.stderr().slice(-4000)}`;
        await within(app.waitFor(1), 40_000, () => `the app got ${app.received.length} of 1 delivery in 40 s\n${log()}`);
        const r = await scrapeUntil(
          `${relay.url}/metrics`,
          ADMIN,
          (text) => sample(text, 'relay_forward_attempts_total', { target: app.url, outcome: 'ok' }) >= 1 && /^relay_jetstream_consumer_pending\{/m.test(text),
          'an ok forward attempt and the consumer gauges',
          log,
        );
        assert.equal(sample(r.text, 'relay_jetstream_connected'), 1);
        assert.equal(sample(r.text, 'relay_store_ready'), 1);
        const lint = await promtool(['check', 'metrics'], r.text);
        assert.equal(lint.code, 0, lint.out);
        assert.equal(lint.out.trim(), '');
      });
    });
  });
});
