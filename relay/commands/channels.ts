// `service-hooks channels create|list|rotate|delete`: manage a relay's channels through its admin API.
import { redact } from '../shared/redact';
import { CHANNEL_NAME_RE, CHANNEL_NAME_RULE } from '../../src/core/relay/channelName';
import { newSecret } from '../../src/core/randomToken';
import { defineCommand } from '../cli/args';
import { RELAY_TARGET_HELP, RELAY_TARGET_OPTIONS, callRelay, relayApi } from '../cli/relayTarget';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import type { RelayApi } from '../client/api';
import type { ChannelInfo } from '../../src/core/relay/protocol';
import { DEFAULT_RELAY_PORT } from '../../src/core/defaults';

const help = `Usage: service-hooks channels create NAME (--secret S... | --generate-secret) [--json]
       service-hooks channels list [--json]
       service-hooks channels rotate NAME [--secret S | --generate-secret] [--only] [--json]
       service-hooks channels delete NAME

Manages the channels of a running relay with its admin token (the relay token). Each channel
has its own ingress URL (<public-url>/hooks/NAME), its own signing secrets and its own token.
A channel token sees only its channel: give it to \`service-hooks forward --token\` on a laptop.

  create NAME   prints the ingress URL and the channel token. The token is shown only once
                (the relay keeps a hash); with --generate-secret also the new secret, once.
  list          the channels with their counts (never tokens or secrets); 'refused' counts the
                deliveries the source allow-list turned away (403) since the relay started
  rotate NAME   adds a signing secret (--secret S, or a generated one, printed once) and keeps
                the token: both secrets verify until you run it again with --only. Rotation
                without downtime: rotate, change the webhook's secret on the service, then
                rotate NAME --secret <new> --only (the old secret stops verifying)
  delete NAME   the channel's token stops working and its ingress URL answers 404

Options:
  --secret S          a signing secret of the channel (repeatable, for rotation)
  --generate-secret   make a strong random secret (32 bytes, base64url) and print it once
  --only              (rotate) keep only the given secret: drop every other
  --json              print the relay's JSON answer
${RELAY_TARGET_HELP}

Exit codes: 0 done, 1 the relay refused (e.g. the channel exists or does not) or is unreachable,
2 usage error.
`;

function row(c: ChannelInfo): string {
  const counts = `received ${c.received}, verified ${c.verified}, unverified ${c.unverified}, rejected ${c.rejected}, refused ${c.refused ?? 0}`;
  return `${c.name}  ${c.source}  secrets ${c.secrets}  ${counts}  ${c.ingressUrl}`;
}

async function create(
  api: RelayApi,
  relayUrl: string,
  name: string,
  values: { secret?: string[]; 'generate-secret'?: boolean; json?: boolean },
  io: CliIO,
): Promise<number> {
  const secrets = [...(values.secret ?? [])];
  if (secrets.some((s) => s === '')) throw new UsageError('--secret must not be empty');
  const generated = values['generate-secret'] ? newSecret() : undefined;
  if (generated) secrets.push(generated);
  if (secrets.length === 0) throw new UsageError('create needs --secret S or --generate-secret (a channel without a secret accepts forged deliveries)');
  const created = await api.createChannel({ name, secrets });
  if (created.warning) io.stderr.write(`channels: warning: ${created.warning}\n`);
  if (values.json) {
    io.stdout.write(JSON.stringify(generated ? { ...created, secret: generated } : created, null, 2) + '\n');
    return EXIT.ok;
  }
  io.stdout.write(`channel ${created.name} created\n`);
  io.stdout.write(`  ingress URL: ${created.ingressUrl}\n`);
  io.stdout.write(`  token:       ${created.token}\n`);
  if (generated) io.stdout.write(`  secret:      ${generated}\n`);
  // The --relay URL as given may hold user:password@: the hint shows it redacted.
  const ws = redact(relayUrl.replace(/^http/, 'ws').replace(/\/+$/, ''));
  io.stderr.write(
    `The token${generated ? ' and the secret are' : ' is'} shown only now. Forward with:\n  service-hooks forward --relay ${ws} --token <token> --to http://127.0.0.1:3000/webhook\n`,
  );
  return EXIT.ok;
}

async function rotate(
  api: RelayApi,
  name: string,
  values: { secret?: string[]; 'generate-secret'?: boolean; only?: boolean; json?: boolean },
  io: CliIO,
): Promise<number> {
  const given = values.secret ?? [];
  if (given.some((s) => s === '')) throw new UsageError('--secret must not be empty');
  if (given.length > 1) throw new UsageError('rotate takes one --secret');
  if (given.length === 1 && values['generate-secret']) throw new UsageError('give --secret S or --generate-secret, not both');
  if (values.only && given.length === 0) throw new UsageError('--only needs --secret S: the one secret to keep');
  const secret = given[0] ?? newSecret();
  const info = await api.updateChannelSecrets(name, values.only ? { secrets: [secret] } : { addSecrets: [secret] });
  if (values.json) {
    io.stdout.write(JSON.stringify(given.length === 0 ? { ...info, secret } : info, null, 2) + '\n');
    return EXIT.ok;
  }
  io.stdout.write(`channel ${name}: ${values.only ? 'only the given secret verifies now' : 'secret added'} (${info.secrets} in use; the token is unchanged)\n`);
  if (given.length === 0) io.stdout.write(`  secret: ${secret}\n`);
  if (info.warning) io.stderr.write(`warning: ${info.warning}\n`);
  if (!values.only)
    io.stderr.write(
      `Give the webhook this secret on the service; once its deliveries verify, drop the old one:\n  service-hooks channels rotate ${name} --secret <the new secret> --only\n`,
    );
  return EXIT.ok;
}

export default defineCommand({
  help,
  options: {
    ...RELAY_TARGET_OPTIONS,
    secret: { type: 'string', multiple: true },
    'generate-secret': { type: 'boolean' },
    json: { type: 'boolean' },
    only: { type: 'boolean' },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const [action, name, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (action !== 'create' && action !== 'list' && action !== 'rotate' && action !== 'delete') {
      throw new UsageError(action === undefined ? 'say create, list, rotate or delete' : `unknown action '${action}' (create, list, rotate or delete)`);
    }
    if (action === 'list' && name !== undefined) throw new UsageError(`list takes no name, got '${name}'`);
    if (action !== 'list' && !name) throw new UsageError(`${action} needs a channel NAME`);
    if (action === 'create' && !CHANNEL_NAME_RE.test(name!)) {
      throw new UsageError(`a channel NAME is ${CHANNEL_NAME_RULE}; got '${name}'`);
    }
    if (action !== 'create' && action !== 'rotate' && (values.secret || values['generate-secret']))
      throw new UsageError(`--secret and --generate-secret belong to create and rotate`);
    if (action !== 'rotate' && values.only) throw new UsageError('--only belongs to rotate');
    const api = relayApi(values, io);
    return callRelay(values.relay, async () => {
      if (action === 'create') return create(api, values.relay ?? `http://127.0.0.1:${DEFAULT_RELAY_PORT}`, name!, values, io);
      if (action === 'rotate') return rotate(api, name!, values, io);
      if (action === 'delete') {
        await api.deleteChannel(name!);
        io.stdout.write(`channel ${name} deleted\n`);
        return EXIT.ok;
      }
      const channels = await api.listChannels();
      if (values.json) io.stdout.write(JSON.stringify({ channels }, null, 2) + '\n');
      else if (channels.length === 0) io.stdout.write('no channels yet; create one with: service-hooks channels create NAME --generate-secret\n');
      else for (const c of channels) io.stdout.write(row(c) + '\n');
      return EXIT.ok;
    });
  },
});
