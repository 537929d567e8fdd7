// `service-hooks emulate`: the service emulator (relay/emulator). Runs until SIGINT/SIGTERM.
import { resolve } from 'node:path';
import { randomToken } from '../../src/core/randomToken';
import { DEFAULT_SERVICE_PORT, DEMO_SECRET } from '../../src/core/defaults';
import { forbiddenTarget } from '../../src/core/net/address';
import { defineCommand, port, size, type ParsedValues } from '../cli/args';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { DEFAULT_DEMO_RELAY_URL, EMULATOR_MAX_BODY, startEmulator, type EmulatorOptions } from '../emulator';

const TOKEN_ENV = 'SERVICE_HOOKS_EMULATOR_TOKEN';

const help = `Usage: service-hooks emulate [options]

A local stand-in for the service: the webhook API of spec §4 under /api/v1 (webhooks, ping,
retry, issues/bulk, secrets), a delivery engine that signs and POSTs events to subscribed
webhooks and retries failures after 1, 5 and 30 minutes (4 attempts), and, as an emulator
extension, GET /api/v1/webhooks/<id>/deliveries[/<delivery_id>].

Options:
  --port N              port to listen on (default ${DEFAULT_SERVICE_PORT}; 0 picks a free port)
  --host H              address to bind (default 127.0.0.1)
  --token T             API token (Authorization: Bearer T); else $${TOKEN_ENV};
                        else one is generated and printed once
  --state FILE          keep state in FILE (atomic writes, mode 0600); default: memory only
  --time-scale F        speed the retry schedule up by F: delays are divided by F
                        (1000: one minute becomes 60 ms; 60000: it becomes 1 ms), as in \`relay\`
  --demo                when the state is empty: org acme, repo widgets, a webhook to the relay
                        (secret ${DEMO_SECRET}, all events) and one to an endpoint that always
                        fails (push), then fire one push
  --demo-relay-url URL  the demo relay webhook's URL (default ${DEFAULT_DEMO_RELAY_URL})
  --max-body SIZE       request body limit (default 1mb); larger bodies get 413
  --delivery-timeout D  per-attempt delivery time-out in ms, or 10s / 2m (default 10s)
  --list-deliveries     also serve the deliveries listing, an emulator extension the real service
                        does not have (GET …/webhooks/<id>/deliveries[/<delivery_id>]). Without
                        it (the default) the emulator serves the documented API only, as the real
                        service does: deliveries are shown in its web UI, and the editor reads
                        them from the relay journal of the relay a webhook points at
  --documented-only     the default, said explicitly (kept for scripts that pass it)
  -h, --help            show this help

Emulator-only routes:
  POST /_emulator/repos/<org>/<repo>/events {"event":"push","payload":{...}?}   fire an event
  ANY  /_emulator/fail/<status>                                             answers <status>
  GET  /runner/install.sh     (no token) installs a fake \`runner\` that only prints what it would do:
                              sh install.sh [--dir DIR]   (default $SERVICE_RUNNER_DIR, else ./service-runner)

Example:
  curl -H "Authorization: Bearer $${TOKEN_ENV}" http://127.0.0.1:8787/api/v1/repos/acme/widgets/webhooks
`;

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value);
  if (!m || Number(m[1]) <= 0) throw new UsageError(`--delivery-timeout must be a positive duration such as 10s or 2500, got '${value}'`);
  return Math.round(Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 'ms') as 'ms']);
}

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  state: { type: 'string' },
  'time-scale': { type: 'string' },
  demo: { type: 'boolean' },
  'demo-relay-url': { type: 'string' },
  'max-body': { type: 'string' },
  'delivery-timeout': { type: 'string' },
  'documented-only': { type: 'boolean' },
  'list-deliveries': { type: 'boolean' },
} as const;

type Values = ParsedValues<typeof OPTIONS>;

/** Whether to serve the deliveries listing: only with --list-deliveries (the real service has none). */
function listDeliveries(values: Values): boolean {
  if (values['list-deliveries'] && values['documented-only']) throw new UsageError('--list-deliveries and --documented-only contradict each other: give one');
  return values['list-deliveries'] === true;
}

/** The emulator's options from the command line; usage errors throw UsageError (exit 2). */
function emulatorOptions(values: Values, io: Pick<CliIO, 'env' | 'cwd' | 'stderr'>): { options: EmulatorOptions; token: string; generated: boolean } {
  const timeScale = values['time-scale'] === undefined ? 1 : Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale <= 0) throw new UsageError(`--time-scale must be a positive number, got '${values['time-scale']}'`);
  const demoRelayUrl = values['demo-relay-url'];
  if (demoRelayUrl !== undefined && (!/^https?:\/\/\S+$/.test(demoRelayUrl) || !URL.canParse(demoRelayUrl))) {
    throw new UsageError(`--demo-relay-url must be an http(s) URL, got '${demoRelayUrl}'`);
  }
  const refused = demoRelayUrl === undefined ? undefined : forbiddenTarget(new URL(demoRelayUrl));
  if (refused) throw new UsageError(`--demo-relay-url must not point there: ${refused}`);
  if (values.token === '') throw new UsageError('--token must not be empty');
  const envToken = io.env[TOKEN_ENV];
  const token = values.token ?? (envToken ? envToken : undefined) ?? randomToken(24);
  const generated = values.token === undefined && !envToken;

  const maxBody = size(values['max-body'], EMULATOR_MAX_BODY, '--max-body');
  if (maxBody < 1) throw new UsageError('--max-body must be at least 1 byte');
  const options: EmulatorOptions = {
    port: port(values.port, DEFAULT_SERVICE_PORT),
    host: values.host ?? '127.0.0.1',
    token,
    state: values.state ? resolve(io.cwd, values.state) : undefined,
    timeScale,
    demo: values.demo ?? false,
    demoRelayUrl,
    maxBody,
    deliveriesEndpoint: listDeliveries(values),
    deliveryTimeoutMs: parseTimeout(values['delivery-timeout']),
    log: (line) => io.stderr.write(`emulator: ${line}\n`),
  };
  return { options, token, generated };
}

export default defineCommand({
  help,
  options: OPTIONS,
  async run({ values }, io) {
    const { options, token, generated } = emulatorOptions(values, io);
    let emulator;
    try {
      emulator = await startEmulator(options);
    } catch (err) {
      io.stderr.write(`service-hooks emulate: ${(err as Error).message}\n`);
      return EXIT.failure;
    }
    io.stdout.write(`emulator listening on ${emulator.url}\n`);
    if (generated) io.stdout.write(`emulator token (generated, shown once): ${token}\n`);
    const shown = generated ? token : values.token !== undefined ? '<the --token value>' : `$${TOKEN_ENV}`;
    io.stdout.write(`list webhooks: curl -H "Authorization: Bearer ${shown}" ${emulator.url}/api/v1/repos/acme/widgets/webhooks\n`);
    if (!io.stopSignal.aborted) {
      await new Promise<void>((r) => io.stopSignal.addEventListener('abort', () => r(), { once: true }));
    }
    io.stderr.write('emulator: stopping\n');
    await emulator.close();
    io.stderr.write('emulator: stopped\n');
    return EXIT.ok;
  },
});
