// Debian's Prometheus and promtool for the monitoring tests: installed with apt when missing (as
// natsServers.ts installs nats-server and the code-server harness chromium), promtool run on files
// or on a scrape, and a real Prometheus on a loopback port it chooses, with its own temporary TSDB.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { parse, stringify } from 'yaml';

export const PROMETHEUS = '/usr/bin/prometheus';
export const PROMTOOL = '/usr/bin/promtool';

/** Makes sure prometheus and promtool are installed (apt-get as root); throws with the reason otherwise. */
export function ensurePrometheus(): void {
  if (existsSync(PROMETHEUS) && existsSync(PROMTOOL)) return;
  if (typeof process.getuid === 'function' && process.getuid() !== 0)
    throw new Error(
      `${PROMETHEUS} or ${PROMTOOL} is missing and installing it needs root. Run as root:\n  apt-get update && apt-get install -y --no-install-recommends prometheus`,
    );
  const run = (args: string[]) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  run(['update', '-qq']);
  // No recommends: prometheus-node-exporter is not needed here.
  const r = run(['install', '-y', '-qq', '--no-install-recommends', 'prometheus']);
  if (!existsSync(PROMETHEUS) || !existsSync(PROMTOOL))
    throw new Error(`prometheus is not installed and apt-get could not install it: ${r.stderr?.toString().trim() || r.error?.message || `exit ${r.status}`}`);
}

export interface ToolRun {
  code: number | null;
  out: string;
}

/** Runs promtool with `args` (and `input` on stdin); its exit code and its stdout and stderr together. */
export function promtool(args: string[], input?: string): Promise<ToolRun> {
  ensurePrometheus();
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out }));
    child.stdin.end(input ?? '');
  });
}

export interface Alert {
  labels: Record<string, string>;
  state: 'inactive' | 'pending' | 'firing';
  activeAt?: string;
}

export interface PrometheusProcess {
  url: string;
  /** What Prometheus logged (stderr). */
  log(): string;
  /** GET /api/v1/<path>: the `data` of a successful answer; throws with the answer otherwise. */
  api<T>(path: string): Promise<T>;
  alerts(): Promise<Alert[]>;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus with `configFile` on 127.0.0.1 at a port the kernel chooses
 * (`--web.listen-address=127.0.0.1:0`; Prometheus logs the port it got: nothing is probed and
 * released for another process to take), with a TSDB in a temporary folder removed at stop().
 */
export async function startPrometheus(configFile: string): Promise<PrometheusProcess> {
  ensurePrometheus();
  const data = mkdtempSync(join(tmpdir(), 'sh-prometheus-'));
  const child = spawn(PROMETHEUS, [`--config.file=${configFile}`, `--storage.tsdb.path=${data}`, '--web.listen-address=127.0.0.1:0', '--log.level=info'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const port = await listeningPort(
      child,
      () => log,
      (c) => (log += c),
    );
    const url = `http://127.0.0.1:${port}`;
    const api = async <T>(path: string): Promise<T> => {
      const res = await request(`${url}/api/v1/${path}`);
      const text = await res.body.text();
      const j = JSON.parse(text) as { status: string; data: T };
      if (res.statusCode !== 200 || j.status !== 'success') throw new Error(`GET /api/v1/${path}: ${res.statusCode} ${text}`);
      return j.data;
    };
    return {
      url,
      log: () => log,
      api,
      alerts: async () => (await api<{ alerts: Alert[] }>('alerts')).alerts,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
        rmSync(data, { recursive: true, force: true });
      },
    };
  } catch (err) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(data, { recursive: true, force: true });
    throw err;
  }
}

/** The port Prometheus's web listener got (it logs `msg="Listening on" address=127.0.0.1:NNN`), once it is ready. */
function listeningPort(child: ChildProcess, log: () => string, append: (c: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      append(c.toString());
      const m = /msg="Listening on" address=127\.0\.0\.1:(\d+)/.exec(log());
      // It listens before its TSDB is open (its API answers 503 until then); it says when it is ready.
      if (m && Number(m[1]) > 0 && /msg="Server is ready to receive web requests\."/.test(log())) resolve(Number(m[1]));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`prometheus exited (${code}) before it listened:\n${log().slice(-3000)}`)));
    // Bounded under the tests' timeouts, so a Prometheus that never gets ready says what it logged.
    const timer = setTimeout(() => reject(new Error(`prometheus was not ready within 30 s:\n${log().slice(-3000)}`)), 30_000);
    child.once('exit', () => clearTimeout(timer));
    child.stderr!.on('data', () => /Server is ready/.test(log()) && clearTimeout(timer));
  });
}

export const MONITORING = join(__dirname, '../../../docs/monitoring');
export const SHIPPED_CONFIG = join(MONITORING, 'prometheus.yml');
export const SHIPPED_RULES = join(MONITORING, 'relay-alerts.yml');

interface ScrapeJob {
  job_name: string;
  scheme?: string;
  authorization?: { type?: string; credentials_file?: string };
  static_configs: { targets: string[] }[];
  [k: string]: unknown;
}
interface PromConfig {
  global: Record<string, string>;
  rule_files: string[];
  scrape_configs: ScrapeJob[];
}

/** The shipped prometheus.yml, parsed. */
export function shippedConfig(): PromConfig {
  return parse(readFileSync(SHIPPED_CONFIG, 'utf8')) as PromConfig;
}

/** The shipped file's commented-out job B, uncommented (its `  # ` lines after the `# B:` line). */
export function commentedJob(): ScrapeJob {
  const lines = readFileSync(SHIPPED_CONFIG, 'utf8').split('\n');
  const from = lines.findIndex((l) => /^ {2}# B:/.test(l));
  if (from < 0) throw new Error(`${SHIPPED_CONFIG} has no '# B:' job`);
  const job = lines.slice(from + 1).filter((l) => /^ {2}# /.test(l));
  const jobs = (parse(`scrape_configs:\n${job.map((l) => l.replace(/^ {2}# /, '  ')).join('\n')}\n`) as PromConfig).scrape_configs;
  if (jobs.length !== 1) throw new Error(`job B uncommented is ${JSON.stringify(jobs)}`);
  return jobs[0]!;
}

/**
 * Writes into `dir` a prometheus.yml (`config`) and the shipped relay-alerts.yml beside it, which
 * rule_files names; with `alertFor`, every rule's `for:` is that (a test's short wait). Returns the
 * config file's path.
 */
export function writeConfig(dir: string, config: PromConfig, o: { alertFor?: string } = {}): string {
  const rules = parse(readFileSync(SHIPPED_RULES, 'utf8')) as { groups: { rules: { for?: string }[] }[] };
  if (o.alertFor) for (const g of rules.groups) for (const r of g.rules) r.for = o.alertFor;
  writeFileSync(join(dir, 'relay-alerts.yml'), stringify(rules));
  const file = join(dir, 'prometheus.yml');
  writeFileSync(file, stringify(config));
  return file;
}

/**
 * The shipped config for a test's Prometheus: its one job aimed at `target` over plain HTTP with
 * the test's token file, scraped and evaluated every second (the shipped 15 s would make a test
 * wait minutes). Nothing else changes.
 */
export function testConfig(target: string, tokenFile: string): PromConfig {
  const config = shippedConfig();
  if (config.scrape_configs.length !== 1) throw new Error(`the shipped config enables ${config.scrape_configs.length} scrape jobs, not one`);
  const job = config.scrape_configs[0]!;
  job.scheme = 'http';
  job.authorization = { ...job.authorization, credentials_file: tokenFile };
  job.static_configs = [{ targets: [target] }];
  config.global = { ...config.global, scrape_interval: '1s', evaluation_interval: '1s' };
  return config;
}
