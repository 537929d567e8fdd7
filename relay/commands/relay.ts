// `service-hooks relay`: the local dev relay (relay/server). Runs until SIGINT/SIGTERM; with TLS,
// SIGHUP reloads the certificate and key.
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand, parseDuration, type ParsedValues, port, positiveDuration, size } from '../cli/args';

export { parseDuration } from '../cli/args';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { PUBLIC_HELP, PUBLIC_OPTIONS, publicRelayOptions } from '../cli/publicOptions';
import { DataDirLockedError, DEFAULT_DATA_DIR, DEFAULT_MAX_BODY, RelayConfigError, startRelay, type ChannelConfig, type RelayOptions, type RelayServer } from '../server';
import { loadTls } from '../server/tls';
import { DEFAULT_RELAY_PORT } from '../../src/core/defaults';
import { parseNatsServers } from '../server/nats/urls';

const help = `Usage: service-hooks relay [options]

Receives deliveries at POST /hooks/<channel> (channel 'default' when none), verifies
X-Service-Signature on the raw bytes, journals them durably, answers 200 { seq }, then
forwards the original bytes to each target, retrying on the service's schedule.

Options:
  --port N              port to listen on (default ${DEFAULT_RELAY_PORT}; 0 picks a free port)
  --host H              address to bind (default 127.0.0.1; 0.0.0.0 with --public)
  --forward URL         forward every delivery to URL (repeatable)
  --secret S            accepted signing secret (repeatable, for rotation); none: accept unverified.
                        An empty secret is refused; one shorter than 16 bytes gets a warning
  --config FILE         JSON: { "secrets": [...], "forward": [...], "channels": { "<name>":
                        { "secrets": [...], "forward": [...] } }, "allowCidr": [...] }
  --data DIR            journal and token directory (default ${DEFAULT_DATA_DIR.replace(/^.*\.service-hooks/, '~/.service-hooks')})
  --allow-cidr C        accept deliveries only from C (CIDR, or preset 'service' = 203.0.113.0/24 +
                        198.51.100.0/24, or 'loopback'); repeatable; default: any source
  --trust-proxy         take the client address from X-Forwarded-For (behind a proxy only)
  --max-body SIZE       body cap (default 25mb); larger bodies get 413
  --retry-schedule L    delays before attempts, e.g. 0,1m,5m,30m (default: the service's)
  --time-scale F        speed the retry schedule up by F: 1000 turns one minute into 60 ms
                        (default 1; the same meaning as in \`emulate\`)
  --forward-timeout D   total deadline of one forward attempt, from sending to the answer's
                        last byte, e.g. 10s, 500ms (default 10s, like the service's); a target
                        that trickles its answer gets a failed attempt and a retry
  --allow-host H        also accept this Host on /api and /ws (repeatable; for a public relay)
  --allow-origin O      also accept this browser Origin on /ws (repeatable)
  --keep N              retention: keep at most N deliveries (default 100000)
  --max-age D           retention: drop deliveries older than D, e.g. 7d, 12h (default 30d)
  --store URLS          keep deliveries in NATS JetStream instead of the file journal:
                        nats://HOST:PORT[,nats://HOST:PORT…] (tls:// for TLS; user:pass@ in
                        the URL); several relays on one store share deliveries and forwarding
  --nats-creds FILE     NATS credentials file (JWT + NKey seed)
  --nats-replicas N     stream replicas (default: 3 with three or more servers, else 1)

${PUBLIC_HELP}

One relay per --data folder: a second one on the same folder exits 3 (the first holds
<data>/relay.lock with its pid; a lock left by a relay that is gone is taken over).
Exit codes: 0 stopped cleanly, 1 failure (e.g. the port is taken), 2 usage or config error,
3 the data folder is in use by another relay.

The API and WebSocket (/ws) need the relay token, generated into <data>/token (mode 0600)
and printed once when created. The address is printed as: relay listening on http(s)://HOST:PORT
`;

import { parseSchedule } from '../cli/args';
export { parseSchedule };

const DAY_MS = 24 * 3_600_000;

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
    if (list?.includes('')) throw new UsageError(`--config ${file}: ${where} holds an empty secret; a delivery signed with the empty key would be accepted as verified`);
  }
  return c;
}

/** --store nats://… (and its companions), or nothing for the file journal. */
function natsChoice(store: string | undefined, creds: string | undefined, replicas: string | undefined, cwd: string): Pick<RelayOptions, 'nats'> {
  if (store === undefined || store === 'file') {
    if (creds !== undefined || replicas !== undefined) throw new UsageError('--nats-creds and --nats-replicas go with --store nats://…');
    return {};
  }
  try {
    parseNatsServers(store);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const n = replicas === undefined ? undefined : positiveInt(replicas, '--nats-replicas');
  if (n !== undefined && n > 5) throw new UsageError(`--nats-replicas must be from 1 to 5 (JetStream's limit), got ${n}`);
  return { nats: { servers: store, ...(creds ? { credsFile: resolve(cwd, creds) } : {}), ...(n ? { replicas: n } : {}) } };
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  forward: { type: 'string', multiple: true },
  secret: { type: 'string', multiple: true },
  config: { type: 'string' },
  data: { type: 'string' },
  'allow-cidr': { type: 'string', multiple: true },
  'trust-proxy': { type: 'boolean' },
  'max-body': { type: 'string' },
  'retry-schedule': { type: 'string' },
  'time-scale': { type: 'string' },
  'forward-timeout': { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  keep: { type: 'string' },
  'max-age': { type: 'string' },
  store: { type: 'string' },
  'nats-creds': { type: 'string' },
  'nats-replicas': { type: 'string' },
  ...PUBLIC_OPTIONS,
} as const;

type Values = ParsedValues<typeof OPTIONS>;

function timeScaleOf(value: string | undefined): number {
  const timeScale = value === undefined ? 1 : Number(value);
  if (!Number.isFinite(timeScale) || timeScale <= 0) throw new UsageError(`--time-scale must be a positive number, got '${value}'`);
  return timeScale;
}

function secretsOf(values: string[] | undefined): string[] {
  if (values?.some((s) => s === '')) throw new UsageError(`--secret must not be empty: a delivery signed with the empty key would be accepted as verified`);
  return values ?? [];
}

/** The relay's options from the flags and the config file (flags add to the file's lists). */
function relayOptions(values: Values, io: CliIO): RelayOptions {
  const cfg = values.config ? readConfig(resolve(io.cwd, values.config)) : {};
  for (const u of values.forward ?? []) {
    if (!/^https?:\/\/[^\s]+$/.test(u)) throw new UsageError(`--forward must be an http(s) URL, got '${u}'`);
  }
  const secrets = [...(cfg.secrets ?? []), ...secretsOf(values.secret)];
  const allowCidr = [...(cfg.allowCidr ?? []), ...(values['allow-cidr'] ?? [])];
  const trustProxy = values['trust-proxy'] ?? false;
  // host, allowCidr, allowedHosts, TLS, --public and the admin token from the environment:
  const open = publicRelayOptions(values, { host: values.host, allowCidr, trustProxy, secrets, channels: cfg.channels ?? {}, allowedHosts: values['allow-host'] ?? [] }, io);
  return {
    port: port(values.port, DEFAULT_RELAY_PORT),
    dataDir: values.data ? resolve(io.cwd, values.data) : undefined,
    secrets,
    forward: [...(cfg.forward ?? []), ...(values.forward ?? [])],
    channels: cfg.channels,
    trustProxy,
    maxBody: size(values['max-body'], DEFAULT_MAX_BODY, '--max-body'),
    retrySchedule: values['retry-schedule'] ? parseSchedule(values['retry-schedule']) : undefined,
    timeScale: timeScaleOf(values['time-scale']),
    forwardTimeoutMs: values['forward-timeout'] === undefined ? undefined : positiveDuration(values['forward-timeout'], '--forward-timeout'),
    allowedOrigins: values['allow-origin'],
    retention: {
      maxCount: values.keep === undefined ? 100_000 : positiveInt(values.keep, '--keep'),
      maxAgeMs: values['max-age'] === undefined ? 30 * DAY_MS : parseDuration(values['max-age'], '--max-age'),
    },
    ...natsChoice(values.store, values['nats-creds'], values['nats-replicas'], io.cwd),
    signal: io.stopSignal,
    log: (line) => io.stderr.write(`relay: ${line}\n`),
    ...open,
  };
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
function reloadTlsOnHangup(relay: RelayServer, values: Values, io: CliIO): () => void {
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if (!cert || !key) return () => undefined;
  const files = { cert: resolve(io.cwd, cert), key: resolve(io.cwd, key) };
  const reload = () => {
    try {
      relay.useTls(loadTls(files));
      io.stderr.write(`relay: SIGHUP: serving the certificate in ${files.cert} to new connections\n`);
    } catch (err) {
      io.stderr.write(`relay: SIGHUP: the certificate was not reloaded, the current one stays: ${(err as Error).message}\n`);
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}

export default defineCommand({
  help,
  options: OPTIONS,
  async run({ values }, io) {
    let relay;
    // A new token is shown once the relay listens: a start that fails (port taken, NATS refused)
    // removes the token it just made, so the next start makes and shows one instead of neither.
    let created: { token: string; path: string } | undefined;
    try {
      relay = await startRelay({ ...relayOptions(values, io), onTokenCreated: (token, path) => (created = { token, path }) });
    } catch (err) {
      if (created) rmSync(created.path, { force: true });
      if (io.stopSignal.aborted) {
        io.stderr.write('relay: stopped before it started\n');
        return EXIT.ok;
      }
      if (err instanceof RelayConfigError) throw new UsageError(err.message);
      if (err instanceof DataDirLockedError) {
        io.stderr.write(`service-hooks relay: ${err.message}\n`);
        return EXIT.dataDirLocked;
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new Error(listenProblem(code, values.host, values.port));
      throw err;
    }
    // Before the ready line: whoever waits for it may send SIGHUP at once.
    const stopReloading = reloadTlsOnHangup(relay, values, io);
    if (created) io.stdout.write(`relay token (shown once; stored in ${created.path}): ${created.token}\n`);
    io.stdout.write(`relay listening on ${relay.url}\n`);
    io.stdout.write(`relay data in ${relay.dataDir}; ingress ${relay.url}/hooks/<channel>\n`);
    if (!io.stopSignal.aborted) await new Promise<void>((r) => io.stopSignal.addEventListener('abort', () => r(), { once: true }));
    stopReloading();
    io.stderr.write('relay: stopping (pending forwards stay in the journal)\n');
    await relay.close();
    io.stderr.write('relay: stopped\n');
    return EXIT.ok;
  },
});
