// `service-hooks relay`: the local dev relay (relay/server). Runs until SIGINT/SIGTERM; with TLS,
// SIGHUP reloads the certificate and key.
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand, parseDuration, type ParsedValues, port, positiveDuration, size } from '../cli/args';

export { parseDuration } from '../cli/args';
import { EXIT, isUsageError, UsageError, type CliIO, type Command } from '../cli/io';
import { redact } from '../shared/redact';
import { PUBLIC_HELP, PUBLIC_OPTIONS, publicRelayOptions } from '../cli/publicOptions';
import {
  DataDirLockedError,
  DEFAULT_DATA_DIR,
  RELAY_MAX_BODY,
  RelayConfigError,
  startRelay,
  startingError,
  type ChannelConfig,
  type RelayOptions,
  type RelayServer,
} from '../server';
import { loadTls } from '../server/tls';
import { CIDR_PRESETS, SourceAllowList } from '../server/access/access';
import type { RelayLog } from '../server/base/log';
import { LOG_FORMATS, relayLogger, type LogFormat, type RelayLogger } from '../cli/relayLog';
import { DEFAULT_RELAY_PORT, RELAY_RETENTION } from '../../src/core/defaults';
import { storeBackend } from '../server/storeBackends';
import { formatRelayReady, tokenFilePath } from '../../src/core/relay/ready';

const help = `Usage: service-hooks relay [options]

Receives deliveries at POST /hooks/<channel> (channel 'default' when none), verifies
X-Service-Signature on the raw bytes, stores them durably (--store), answers 200 { seq }, then
forwards the original bytes to each target, retrying on the service's schedule. A target
that cannot be connected to (refused, reset, DNS) is not retried on the schedule: its
deliveries wait in order and go as soon as its port answers (probed every 200 ms).

Options:
  --port N              port to listen on (default ${DEFAULT_RELAY_PORT}; 0 picks a free port)
  --host H              address to bind (default 127.0.0.1; 0.0.0.0 with --public)
  --forward URL         forward every delivery to URL (repeatable)
  --secret S            accepted signing secret (repeatable, for rotation); none: accept unverified.
                        An empty secret is refused; one shorter than 16 bytes gets a warning
  --config FILE         JSON: { "secrets": [...], "forward": [...], "channels": { "<name>":
                        { "secrets": [...], "forward": [...] } }, "allowCidr": [...] }
  --data DIR            data folder: lock, token, the file journal (default ${DEFAULT_DATA_DIR.replace(/^.*\.service-hooks/, '~/.service-hooks')})
  --allow-cidr C        accept deliveries only from C (CIDR, or preset 'service' = 203.0.113.0/24 +
                        198.51.100.0/24, or 'loopback'); repeatable; default: any source
  --trust-proxy ADDR    the reverse proxy in front (an address or CIDR, repeatable, e.g.
                        127.0.0.1): X-Forwarded-For names the client on its connections only;
                        from any other peer the header is ignored
  --max-body SIZE       body cap (default 25mb); larger bodies get 413
  --retry-schedule L    delays before attempts, e.g. 0,1m,5m,30m (default: the service's)
  --time-scale F        speed the retry schedule up by F: 1000 turns one minute into 60 ms
                        (default 1; the same meaning as in \`emulate\`)
  --forward-timeout D   total deadline of one forward attempt, from sending to the answer's
                        last byte, e.g. 10s, 500ms (default 10s, like the service's); a target
                        that trickles its answer gets a failed attempt and a retry
  --allow-host H        also accept this Host on /api and /ws (repeatable; for a public relay)
  --allow-origin O      also accept this browser Origin on /ws (repeatable)
  --keep N              retention: keep at most N accepted (verified or unverified) deliveries
                        (default 100000); rejected ones never push them out
  --keep-rejected N     retention of rejected (401) deliveries, apart: the newest N (default 1000)
  --max-age D           retention: drop deliveries older than D, e.g. 7d, 12h (default 30d)
  --snapshot-every N    the file journal's index snapshot, for a fast restart: written after
                        every N records (default: the larger of 50000 and a tenth of the
                        deliveries held), after a prune and at a clean stop; 0: none. On
                        JetStream: every N deliveries (default 100000) and at a clean stop,
                        for an instance that joins
  --store URL           where deliveries are kept: file: (default: the journal in the data
                        folder); nats://HOST:PORT[,nats://HOST:PORT…] for NATS JetStream
                        (tls:// for TLS; user:pass@ in the URL), where several relays on one
                        store share deliveries and forwarding; memory: (gone at exit).
                        Or env SERVICE_HOOKS_STORE (kept out of the process list: for a URL
                        with a password); --store wins
  --nats-creds FILE     NATS credentials file (JWT + NKey seed)
  --nats-replicas N     stream replicas (default: 3 with three or more servers, else 1)
  --metrics-listen A    serve the Prometheus metrics at http://A/metrics without a token, A being
                        [HOST:]PORT (HOST default 127.0.0.1); by default they are at /metrics on
                        the relay's own port and need the admin token
  --no-metrics          collect no metrics (and serve no /metrics)
  --log-format F        text (default: 'relay: <message>') or json (one object per line on
                        stderr: time, level, msg, and seq, channel, target, status, durationMs
                        where they apply); tokens, secrets and URL credentials are redacted
  --ready json          once serving, also print one line of JSON for programs that start the
                        relay: {"ready":"relay","url":…,"dataDir":…,"tokenFile":…|null,"pid":…}
                        (tokenFile is null when SERVICE_HOOKS_RELAY_TOKEN gives the token)

${PUBLIC_HELP}

One relay per --data folder: a second one on the same folder exits 3 (the first holds
<data>/relay.lock with its pid; a lock left by a relay that is gone is taken over).
Exit codes: 0 stopped cleanly, 1 failure, 2 usage or config error, 3 the data folder is in
use by another relay, 4 the port is in use (EADDRINUSE).

The API and WebSocket (/ws) need the relay token, generated into <data>/token (mode 0600)
and printed once when created. GET / is the relay's page: sign in with that token or a
channel token to watch deliveries arrive, open, replay and copy them (a session cookie). The address is printed as: relay listening on http(s)://HOST:PORT
`;

import { parseSchedule } from '../cli/args';
export { parseSchedule };

function positiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got '${value}'`);
  return Number(value);
}

interface ConfigFile {
  secrets?: string[];
  forward?: string[];
  channels?: Record<string, ChannelConfig>;
  allowCidr?: string[];
}

function readConfig(file: string): ConfigFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--config ${file}: ${(err as Error).message}`);
  }
  const isList = (v: unknown) => v === undefined || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
  const c = parsed as ConfigFile;
  if (typeof parsed !== 'object' || parsed === null || !isList(c.secrets) || !isList(c.forward) || !isList(c.allowCidr)) {
    throw new UsageError(`--config ${file}: expected { secrets?: string[], forward?: string[], channels?: {...}, allowCidr?: string[] }`);
  }
  for (const [name, ch] of Object.entries(c.channels ?? {})) {
    if (typeof ch !== 'object' || ch === null || !isList(ch.secrets) || !isList(ch.forward)) {
      throw new UsageError(`--config ${file}: channel '${name}' must be { secrets?: string[], forward?: string[] }`);
    }
  }
  const lists = [['secrets', c.secrets], ...Object.entries(c.channels ?? {}).map(([n, ch]) => [`channels.${n}.secrets`, ch.secrets] as const)] as const;
  for (const [where, list] of lists) {
    if (list?.includes(''))
      throw new UsageError(`--config ${file}: ${where} holds an empty secret; a delivery signed with the empty key would be accepted as verified`);
  }
  return c;
}

/** Where pending forwards are when the relay stops, by store: a JetStream relay has no journal. */
const PENDING_STAY: Record<string, string> = {
  file: 'pending forwards stay in the journal',
  jetstream: 'pending forwards stay in JetStream; the other instances forward them',
  memory: 'pending forwards are lost with the memory store',
};

/** --store URL (relay/server/storeBackends.ts) and the options of its backend; nothing for the file journal. */
function storeChoice(store: string | undefined, creds: string | undefined, replicas: string | undefined, cwd: string): Pick<RelayOptions, 'store'> {
  let kind: string;
  try {
    kind = storeBackend(store).kind;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (kind !== 'jetstream') {
    if (creds !== undefined || replicas !== undefined) throw new UsageError('--nats-creds and --nats-replicas go with --store nats://…');
    return store === undefined ? {} : { store: { url: store } };
  }
  const n = replicas === undefined ? undefined : positiveInt(replicas, '--nats-replicas');
  if (n !== undefined && n > 5) throw new UsageError(`--nats-replicas must be from 1 to 5 (JetStream's limit), got ${n}`);
  return { store: { url: store!, nats: { ...(creds ? { credsFile: resolve(cwd, creds) } : {}), ...(n ? { replicas: n } : {}) } } };
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  forward: { type: 'string', multiple: true },
  secret: { type: 'string', multiple: true },
  config: { type: 'string' },
  data: { type: 'string' },
  'allow-cidr': { type: 'string', multiple: true },
  'trust-proxy': { type: 'string', multiple: true },
  'max-body': { type: 'string' },
  'retry-schedule': { type: 'string' },
  'time-scale': { type: 'string' },
  'forward-timeout': { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  keep: { type: 'string' },
  'keep-rejected': { type: 'string' },
  'max-age': { type: 'string' },
  'snapshot-every': { type: 'string' },
  store: { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-replicas': { type: 'string' },
  'metrics-listen': { type: 'string' },
  'no-metrics': { type: 'boolean' },
  'log-format': { type: 'string' },
  ready: { type: 'string' },
  ...PUBLIC_OPTIONS,
} as const;

type Values = ParsedValues<typeof OPTIONS>;

/**
 * --snapshot-every; SERVICE_HOOKS_TEST_SNAPSHOT_HOLD=1 (tests only) stops a snapshot write half-way
 * through its temporary file for good, so a test can kill the relay then.
 */
function snapshotChoice(every: string | undefined, env: CliIO['env']): Pick<RelayOptions, 'snapshot'> {
  if (every === '0') return { snapshot: false };
  const hold = env.SERVICE_HOOKS_TEST_SNAPSHOT_HOLD === '1' ? { hold: () => new Promise<void>(() => undefined) } : {};
  return { snapshot: { ...(every === undefined ? {} : { every: positiveInt(every, '--snapshot-every') }), ...hold } };
}

function timeScaleOf(value: string | undefined): number {
  const timeScale = value === undefined ? 1 : Number(value);
  if (!Number.isFinite(timeScale) || timeScale <= 0) throw new UsageError(`--time-scale must be a positive number, got '${value}'`);
  return timeScale;
}

function secretsOf(values: string[] | undefined): string[] {
  if (values?.some((s) => s === '')) throw new UsageError(`--secret must not be empty: a delivery signed with the empty key would be accepted as verified`);
  return values ?? [];
}

/** --trust-proxy ADDR|CIDR (repeatable, or comma-separated); each checked like --allow-cidr. */
function trustedProxies(values: string[] | undefined): string[] {
  const out = (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());
  for (const v of out) {
    try {
      new SourceAllowList([v]);
    } catch {
      throw new UsageError(`--trust-proxy takes the proxy's address or CIDR (e.g. --trust-proxy 127.0.0.1), got '${v}'`);
    }
  }
  return out;
}

/** --metrics-listen [HOST:]PORT / --no-metrics → RelayOptions.metrics. */
export function metricsChoice(listen: string | undefined, off: boolean | undefined): Pick<RelayOptions, 'metrics'> {
  if (off && listen !== undefined) throw new UsageError('--metrics-listen and --no-metrics exclude each other');
  if (off) return { metrics: false };
  if (listen === undefined) return {};
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d+)$/.exec(listen.trim());
  if (!m) throw new UsageError(`--metrics-listen must be [HOST:]PORT such as 9464 or 127.0.0.1:9464, got '${listen}'`);
  return { metrics: { host: m[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port: port(m[2], 0, '--metrics-listen') } };
}

function logFormatOf(value: string | undefined): LogFormat {
  if (value === undefined) return 'text';
  if (!LOG_FORMATS.includes(value as LogFormat)) throw new UsageError(`--log-format must be one of ${LOG_FORMATS.join(', ')}, got '${value}'`);
  return value as LogFormat;
}

/** The relay's options from the flags and the config file (flags add to the file's lists). */
function relayOptions(values: Values, io: CliIO, logger: RelayLogger): RelayOptions {
  const cfg = values.config ? readConfig(resolve(io.cwd, values.config)) : {};
  for (const u of values.forward ?? []) {
    if (!/^https?:\/\/[^\s]+$/.test(u)) throw new UsageError(`--forward must be an http(s) URL, got '${u}'`);
  }
  const secrets = [...(cfg.secrets ?? []), ...secretsOf(values.secret)];
  const allowCidr = [...(cfg.allowCidr ?? []), ...(values['allow-cidr'] ?? [])];
  const trustProxy = trustedProxies(values['trust-proxy']);
  // host, allowCidr, allowedHosts, TLS, --public and the admin token from the environment:
  const open = publicRelayOptions(
    values,
    { host: values.host, allowCidr, trustProxy, secrets, channels: cfg.channels ?? {}, allowedHosts: values['allow-host'] ?? [] },
    io,
    logger.log,
  );
  return {
    port: port(values.port, DEFAULT_RELAY_PORT),
    dataDir: values.data ? resolve(io.cwd, values.data) : undefined,
    secrets,
    forward: [...(cfg.forward ?? []), ...(values.forward ?? [])],
    channels: cfg.channels,
    trustProxy,
    maxBody: size(values['max-body'], RELAY_MAX_BODY, '--max-body'),
    retrySchedule: values['retry-schedule'] ? parseSchedule(values['retry-schedule']) : undefined,
    timeScale: timeScaleOf(values['time-scale']),
    forwardTimeoutMs: values['forward-timeout'] === undefined ? undefined : positiveDuration(values['forward-timeout'], '--forward-timeout'),
    allowedOrigins: values['allow-origin'],
    retention: {
      maxCount: values.keep === undefined ? RELAY_RETENTION.maxCount : positiveInt(values.keep, '--keep'),
      maxAgeMs: values['max-age'] === undefined ? RELAY_RETENTION.maxAgeMs : parseDuration(values['max-age'], '--max-age'),
      ...(values['keep-rejected'] === undefined ? {} : { maxRejected: positiveInt(values['keep-rejected'], '--keep-rejected') }),
    },
    ...snapshotChoice(values['snapshot-every'], io.env),
    ...storeChoice(values.store ?? (io.env.SERVICE_HOOKS_STORE || undefined), values['nats-creds'], values['nats-replicas'], io.cwd),
    ...metricsChoice(values['metrics-listen'], values['no-metrics']),
    signal: io.stopSignal,
    log: logger.log,
    onListening: (port) => {
      // A JetStream relay may wait long for NATS (started before the cluster): say that the port already answers.
      if (storeBackend(values.store).kind === 'jetstream')
        logger.log(
          `port ${port} answers while NATS JetStream is reached: /healthz 200, /readyz and posts 503 (${startingError('jetstream')}); "relay listening on" follows once it is`,
        );
    },
    ...open,
  };
}

/**
 * What an active source allow-list means for someone trying the relay (a --public relay has one
 * by default): which sources may deliver, and how to deliver from this machine.
 */
function allowListNotice(allowCidr: readonly string[], url: string): string[] {
  if (allowCidr.length === 0) return [];
  const shown = allowCidr.map((c) => (CIDR_PRESETS[c] ? `${CIDR_PRESETS[c]!.join(', ')} (${c})` : c)).join(', ');
  const loopback = new SourceAllowList(allowCidr).allows('127.0.0.1');
  const send = `service-hooks send ping --to ${url}/hooks/<channel> --secret <its secret>`;
  return [
    `source allow-list active: deliveries are accepted only from ${shown}; any other source gets 403`,
    loopback
      ? `to try it from this machine: ${send}`
      : `to try it from this machine, start with --allow-cidr loopback added (e.g. ${allowCidr.map((c) => `--allow-cidr ${c}`).join(' ')} --allow-cidr loopback), then: ${send}`,
  ];
}

/** --ready: text (the default: the human lines only) or json (one more line, for programs). */
function readyFormat(value: string | undefined): void {
  if (value !== undefined && value !== 'text' && value !== 'json') throw new UsageError(`--ready must be text or json, got '${value}'`);
}

/** A listen error in words, chosen by its code. */
function listenProblem(code: string, host = '127.0.0.1', portFlag = String(DEFAULT_RELAY_PORT)): string {
  // The code stays in the sentence: the editor's Start Relay recognises it (src/extension/relay/process.ts).
  const where = `${host}:${portFlag} (${code})`;
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: the port is in use (another relay?); pick another with --port, or 0 for a free one`;
  if (code === 'EACCES') return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); pick another with --port`;
  return `cannot listen on ${where}: no such address on this machine; check --host`;
}

/**
 * With --tls-cert/--tls-key, SIGHUP reads both files again and serves the new pair to new
 * handshakes (a renewed certificate without a restart); a pair that does not load is refused and
 * the current one stays. Without TLS, SIGHUP keeps its default (the relay ends, as on a closed
 * terminal). Returns the remover of the handler.
 */
function reloadTlsOnHangup(relay: RelayServer, values: Values, io: CliIO, log: RelayLog): () => void {
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if (!cert || !key) return () => undefined;
  const files = { cert: resolve(io.cwd, cert), key: resolve(io.cwd, key) };
  const reload = () => {
    try {
      relay.useTls(loadTls(files));
      log(`SIGHUP: serving the certificate in ${files.cert} to new connections`);
    } catch (err) {
      log(`SIGHUP: the certificate was not reloaded, the current one stays: ${(err as Error).message}`, { level: 'error' });
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}

const relayCommand = defineCommand({
  help,
  options: OPTIONS,
  async run({ values }, io) {
    const format = logFormatOf(values['log-format']);
    const logger = relayLogger(format, (text) => io.stderr.write(text));
    const fail = format === 'json' ? (m: string) => logger.log(m, { level: 'error' }) : (m: string) => io.stderr.write(`service-hooks relay: ${redact(m)}\n`);
    return runRelay(values, io, logger, format, fail);
  },
});

/**
 * Under --log-format json every stderr line is a JSON object: a usage error's (a flag that does
 * not parse included) and a failure's too. Otherwise the dispatcher prints them (relay/cli.ts).
 */
export default {
  help,
  async run(argv, io) {
    if (lastLogFormat(argv) !== 'json') return relayCommand.run(argv, io);
    try {
      return await relayCommand.run(argv, io);
    } catch (err) {
      const usage = isUsageError(err);
      const message = usage ? `${err.message} (service-hooks relay --help)` : ((err as Error).message ?? String(err));
      relayLogger('json', (text) => io.stderr.write(text)).log(message, { level: 'error' });
      return usage ? EXIT.usage : EXIT.failure;
    }
  },
} satisfies Command;

/** The --log-format given last in `argv` (before parsing, which may fail). */
function lastLogFormat(argv: readonly string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === '--log-format') format = argv[++i];
    else if (argv[i]!.startsWith('--log-format=')) format = argv[i]!.slice('--log-format='.length);
  }
  return format;
}

/** The relay until it is told to stop; `fail` prints a failure that has its own exit code. */
async function runRelay(values: Values, io: CliIO, logger: RelayLogger, format: LogFormat, fail: (message: string) => void): Promise<number> {
  let relay;
  // A new token is shown once the relay listens: a start that fails (port taken, NATS refused)
  // removes the token it just made, so the next start makes and shows one instead of neither.
  let created: { token: string; path: string } | undefined;
  const log = logger.log;
  let allowCidr: string[];
  let tokenGiven: boolean;
  try {
    readyFormat(values.ready);
    const options = relayOptions(values, io, logger);
    allowCidr = options.allowCidr ?? [];
    tokenGiven = options.token !== undefined;
    logger.redact([options.token, ...(options.secrets ?? []), ...Object.values(options.channels ?? {}).flatMap((c) => c.secrets ?? [])]);
    relay = await startRelay({ ...options, onTokenCreated: (token, path) => (logger.redact([token]), (created = { token, path })) });
  } catch (err) {
    if (created) rmSync(created.path, { force: true });
    if (io.stopSignal.aborted) {
      log('stopped before it started');
      return EXIT.ok;
    }
    if (err instanceof RelayConfigError) throw new UsageError(err.message);
    if (err instanceof DataDirLockedError) {
      fail(err.message);
      return EXIT.dataDirLocked;
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      fail(listenProblem(code, values.host, values.port));
      return EXIT.portInUse;
    }
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new Error(listenProblem(code, values.host, values.port), { cause: err });
    throw err;
  }
  // Before the ready line: whoever waits for it may send SIGHUP at once.
  logger.redact([relay.token]);
  const stopReloading = reloadTlsOnHangup(relay, values, io, log);
  if (created && format === 'json')
    log(`generated the admin token and stored it in ${created.path} (under --log-format json it is not printed: read it there)`);
  else if (created) io.stdout.write(`relay token (shown once; stored in ${created.path}): ${created.token}\n`);
  io.stdout.write(`relay listening on ${relay.url}\n`);
  io.stdout.write(`relay data in ${relay.dataDir}; ingress ${relay.url}/hooks/<channel>\n`);
  for (const line of allowListNotice(allowCidr, relay.url)) io.stdout.write(line + '\n');
  io.stdout.write(`relay page at ${relay.url}/ (sign in with the admin token or a channel token)\n`);
  if (relay.metricsUrl) io.stdout.write(`relay metrics at ${relay.metricsUrl}${values['metrics-listen'] ? '' : ' (admin token)'}\n`);
  if (values.ready === 'json')
    io.stdout.write(
      formatRelayReady({ url: relay.url, dataDir: relay.dataDir, tokenFile: tokenGiven ? null : tokenFilePath(relay.dataDir), pid: process.pid }) + '\n',
    );
  if (!io.stopSignal.aborted) await new Promise<void>((r) => io.stopSignal.addEventListener('abort', () => r(), { once: true }));
  stopReloading();
  log(`stopping (${PENDING_STAY[storeBackend(values.store).kind] ?? PENDING_STAY.file})`);
  await relay.close();
  log('stopped');
  return EXIT.ok;
}
