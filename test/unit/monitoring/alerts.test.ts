// Pins that the shipped prometheus.yml and relay-alerts.yml, loaded into a real Prometheus
// scraping a real relay, raise no alert while the relay is healthy, raise RelayStoreNotReady when
// its store cannot take deliveries (file store: journal writes refused; JetStream: nats-server
// killed) or when a relay that was up goes away, and raise RelayTargetNeverUp, not the critical
// alert, for a target that was never up (issue 41). The test copy of the config differs from the
// shipped one only in its target, plain HTTP, the test's token file, 1 s scrape and evaluation
// intervals and a 2 s `for:` on every rule (the shipped 15 s and minutes would make a test wait
// minutes); test/unit/monitoring/prometheus.ts makes it. And that every query of the shipped
// Grafana dashboard runs in that Prometheus.
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { startRelay, type RelayServer } from '../../../relay/server';
import { FaultyFs } from '../relay/support/faultyFs';
import { post, tempDir } from '../relay/support/helpers';
import { relayOnNatsPerSuite } from '../nats/relayOnNats';
import { pollUntil } from '../../support/poll';
import { ensurePrometheus, MONITORING, startPrometheus, testConfig, writeConfig, type Alert, type PrometheusProcess } from './prometheus';

const ADMIN = 'alerts-admin-token-0123456789';
const FOR = '2s';

interface RuleGroup {
  name: string;
  lastEvaluation: string;
  rules: { name: string; health: string; lastError?: string }[];
}

const active = (alerts: Alert[]) => alerts.filter((a) => a.state === 'pending' || a.state === 'firing');
const show = (alerts: Alert[]) => JSON.stringify(active(alerts).map((a) => ({ alert: a.labels.alertname, instance: a.labels.instance, state: a.state })));

/** A Prometheus with the test copy of the shipped config aimed at `target` (token file in `dir`). */
async function prometheusFor(target: string, token: string): Promise<PrometheusProcess> {
  const dir = tempDir('sh-prom-config-');
  const tokenFile = join(dir, 'relay.token');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  return startPrometheus(writeConfig(dir, testConfig(target, tokenFile), { alertFor: FOR }));
}

/**
 * Waits until Prometheus has the relay's `relay_store_ready 1` and has then evaluated the rules
 * three more times, asserting at every look that no alert is pending or firing and every rule
 * evaluates without error.
 */
async function healthyWithoutAlerts(prom: PrometheusProcess, instance: string): Promise<void> {
  let saw = '';
  const group = async () => {
    const groups = (await prom.api<{ groups: RuleGroup[] }>('rules')).groups;
    assert.equal(groups.length, 1, JSON.stringify(groups));
    return groups[0]!;
  };
  const quiet = async () => {
    const alerts = await prom.alerts();
    saw = show(alerts);
    assert.deepEqual(active(alerts), [], `an alert while the relay is healthy: ${saw}\nPrometheus log:\n${prom.log().slice(-3000)}`);
  };
  await pollUntil(
    `Prometheus scraping relay_store_ready 1 from ${instance}`,
    async () => {
      await quiet();
      const r = await prom.api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>('query?query=relay_store_ready');
      saw = JSON.stringify(r.result);
      return r.result.some((s) => s.metric.instance === instance && s.value[1] === '1') || undefined;
    },
    () => `${saw}\nPrometheus log:\n${prom.log().slice(-3000)}`,
  );
  const targets = await prom.api<{ activeTargets: { scrapePool: string; health: string; scrapeUrl: string }[] }>('targets');
  assert.deepEqual(
    targets.activeTargets.map((t) => [t.scrapePool, t.health]),
    [['service-hooks-relay', 'up']],
    JSON.stringify(targets),
  );
  const seen = new Set<string>();
  await pollUntil(
    'three rule evaluations with the relay scraped',
    async () => {
      await quiet();
      const g = await group();
      for (const r of g.rules) assert.equal(r.health, 'ok', `rule ${r.name}: ${r.health} ${r.lastError ?? ''}`);
      seen.add(g.lastEvaluation);
      saw = [...seen].join(', ');
      return seen.size > 3 || undefined;
    },
    () => `evaluations seen: ${saw}`,
  );
  assert.deepEqual(
    (await group()).rules.map((r) => r.name),
    ['RelayForwardBacklogGrowing', 'RelayJournalFsyncSlow', 'RelayStoreNotReady', 'RelayTargetNeverUp'],
  );
}

/** Waits until `alertname` fires for `instance`; `never` is checked at every look. */
async function firing(
  prom: PrometheusProcess,
  alertname: string,
  instance: string,
  never: (a: Alert) => boolean = () => false,
  context = () => '',
): Promise<Alert> {
  let saw = '';
  return pollUntil(
    `${alertname} firing for ${instance}`,
    async () => {
      const alerts = await prom.alerts();
      saw = show(alerts);
      const wrong = active(alerts).filter(never);
      assert.deepEqual(wrong, [], `an alert that must not be: ${saw}`);
      return alerts.find((a) => a.labels.alertname === alertname && a.labels.instance === instance && a.state === 'firing');
    },
    () => `alerts: ${saw}\n${context()}\nPrometheus log:\n${prom.log().slice(-3000)}`,
  );
}

/**
 * Every query of the shipped Grafana dashboard, with its variables filled in as Grafana would
 * ($instance, $__rate_interval), runs in this Prometheus without an error; the store-ready panel's
 * relay_store_ready has the relay's series.
 */
async function dashboardQueriesRun(prom: PrometheusProcess, instance: string): Promise<void> {
  const dashboard = JSON.parse(readFileSync(join(MONITORING, 'grafana-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  assert.ok(exprs.length >= 15, `${exprs.length} queries`);
  const escaped = instance.replace(/[.]/g, '\\\\.');
  for (const expr of exprs) {
    const q = expr.replaceAll('$instance', escaped).replaceAll('$__rate_interval', '1m');
    const r = await prom.api<{ result: { metric: Record<string, string> }[] }>(`query?query=${encodeURIComponent(q)}`);
    if (/relay_store_ready/.test(q))
      assert.deepEqual(
        r.result.map((x) => x.metric.instance),
        [instance],
        q,
      );
  }
}

/** The value of `up` for `instance` now, as Prometheus has it. */
async function upNow(prom: PrometheusProcess, instance: string): Promise<string | undefined> {
  const r = await prom.api<{ result: { value: [number, string] }[] }>(`query?query=${encodeURIComponent(`up{instance="${instance}"}`)}`);
  return r.result[0]?.value[1];
}

async function readyz(url: string): Promise<number> {
  const res = await request(`${url}/readyz`);
  await res.body.dump();
  return res.statusCode;
}

describe('the shipped alerts in a real Prometheus', function () {
  this.timeout(150_000); // above the sum of a test's bounded waits, so a slow one says what it saw
  let prom: PrometheusProcess | undefined;
  before(function () {
    this.timeout(600_000); // apt-get install prometheus, once on a fresh machine
    ensurePrometheus();
  });
  afterEach(async () => {
    await prom?.stop();
    prom = undefined;
  });

  describe('file store', () => {
    let relay: RelayServer | undefined;
    afterEach(async () => {
      await relay?.close().catch(() => undefined);
      relay = undefined;
    });

    it('no alert while healthy; RelayStoreNotReady fires once journal writes are refused', async () => {
      const fs = new FaultyFs();
      relay = await startRelay({ port: 0, dataDir: tempDir(), journalFs: fs, log: () => undefined });
      const instance = `127.0.0.1:${relay.port}`;
      prom = await prometheusFor(instance, relay.token);
      await healthyWithoutAlerts(prom, instance);
      await dashboardQueriesRun(prom, instance);

      // The data folder turns read-only: every journal write fails, /readyz answers 503.
      fs.fail('writev', { code: 'EROFS', partialBytes: 10 });
      fs.fail('truncate', { code: 'EROFS' });
      fs.fail('open', { code: 'EROFS', mode: 'append' });
      assert.notEqual((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
      assert.equal(await readyz(relay.url), 503);
      const alert = await firing(prom, 'RelayStoreNotReady', instance);
      assert.equal(alert.labels.severity, 'critical');
      assert.equal(await upNow(prom, instance), '1', 'it fired for the store, with the relay up and scraped');
    });
  });

  describe('JetStream store', () => {
    const running = relayOnNatsPerSuite(ADMIN);

    it('no alert while healthy; RelayStoreNotReady fires once nats-server is killed', async () => {
      const { relay, nats } = running();
      const instance = `127.0.0.1:${relay.port}`;
      prom = await prometheusFor(instance, ADMIN);
      await healthyWithoutAlerts(prom, instance);

      await nats.nodes[0]!.kill();
      const alert = await firing(prom, 'RelayStoreNotReady', instance, undefined, () => `relay log:\n${relay.stderr().slice(-3000)}`);
      assert.equal(alert.labels.severity, 'critical');
      assert.equal(await readyz(relay.url), 503);
      assert.equal(await upNow(prom, instance), '1', 'it fired for the store, with the relay up and scraped');
    });
  });

  describe('a target that was never up, and a relay that goes away', () => {
    let relay: RelayServer | undefined;
    let refusing: Server | undefined;
    afterEach(async () => {
      await relay?.close().catch(() => undefined);
      relay = undefined;
      await new Promise((r) => (refusing ? refusing.close(r) : r(undefined)));
      refusing = undefined;
    });

    it('never up: RelayTargetNeverUp, never RelayStoreNotReady; up then gone: RelayStoreNotReady', async () => {
      // A port that accepts and at once closes: every scrape of it fails (up 0), deterministically.
      refusing = createServer((s) => s.destroy());
      await new Promise<void>((r) => refusing!.listen(0, '127.0.0.1', r));
      const never = `127.0.0.1:${(refusing.address() as { port: number }).port}`;
      relay = await startRelay({ port: 0, dataDir: tempDir(), log: () => undefined });
      const gone = `127.0.0.1:${relay.port}`;

      const dir = tempDir('sh-prom-config-');
      const tokenFile = join(dir, 'relay.token');
      writeFileSync(tokenFile, `${relay.token}\n`, { mode: 0o600 });
      // The shipped job, with two targets: one never up, one up (then stopped).
      const config = testConfig(gone, tokenFile);
      config.scrape_configs[0]!.static_configs = [{ targets: [never, gone] }];
      prom = await startPrometheus(writeConfig(dir, config, { alertFor: FOR }));
      const p = prom;

      const notStoreForNever = (a: Alert) => a.labels.alertname === 'RelayStoreNotReady' && a.labels.instance === never;
      const notNeverForRelay = (a: Alert) => a.labels.alertname === 'RelayTargetNeverUp' && a.labels.instance === gone;
      const neverUp = await firing(p, 'RelayTargetNeverUp', never, (a) => notStoreForNever(a) || notNeverForRelay(a) || a.labels.instance === gone);
      assert.equal(neverUp.labels.severity, 'warning');

      // The relay (scraped, up) stops: its target goes down, and it had been up.
      await pollUntil(
        `${gone} scraped up`,
        async () => ((await upNow(p, gone)) === '1' ? true : undefined),
        () => p.log().slice(-3000),
      );
      await relay.close();
      relay = undefined;
      await firing(p, 'RelayStoreNotReady', gone, (a) => notStoreForNever(a) || notNeverForRelay(a));
    });
  });
});
