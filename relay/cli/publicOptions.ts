// The `relay` command's flags for a public endpoint: TLS files, --public, --public-url, and the
// admin token from SERVICE_HOOKS_RELAY_TOKEN. Turns them into relay options or a UsageError (exit 2).
import { resolve } from 'node:path';
import { PublicConfigError, publicSettings, unsignedChannels } from '../server/public';
import { loadTls, TlsConfigError, type TlsMaterial } from '../server/tls';
import { UsageError, type CliIO } from './io';
import type { RelayLog } from '../server/base/log';

export const PUBLIC_OPTIONS = {
  public: { type: 'boolean' },
  'public-url': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
} as const;

export const PUBLIC_HELP = `Public endpoint:
  --tls-cert FILE       serve HTTPS and WSS on the port with this PEM certificate (chain)...
  --tls-key FILE        ...and its PEM private key (plain HTTP to the port is not served);
                        SIGHUP reads both again (a renewed certificate without a restart)
  --public-url URL      the public address put in channel ingress URLs (<URL>/hooks/<name>) and
                        accepted as Host on /api and /ws (default: the listen address)
  --public              the safe preset for the internet: needs --tls-cert/--tls-key or
                        --trust-proxy ADDR (exit 2 otherwise); binds 0.0.0.0 with TLS, 127.0.0.1
                        without (for the proxy on this machine) unless --host; applies
                        --allow-cidr service unless --allow-cidr; serves only configured, 'default'
                        (with --secret) and API-created channels, each with a secret; a channel
                        cannot be created without secrets; unverified deliveries are refused

Channels: POST /api/channels {"name","secrets":[...]} with the relay (admin) token creates a
channel with its own secrets and token (see \`service-hooks channels --help\`); kept in
<data>/channels.json (mode 0600, tokens as SHA-256 hashes). The admin token may also come from
env SERVICE_HOOKS_RELAY_TOKEN (at least 16 characters) instead of <data>/token.`;

export interface PublicFlags {
  public?: boolean;
  'public-url'?: string;
  'tls-cert'?: string;
  'tls-key'?: string;
}

export interface PublicRelayOptions {
  host: string;
  allowCidr: string[];
  requireVerified: boolean;
  tls?: TlsMaterial;
  publicUrl?: string;
  /** Hosts to accept on /api and /ws besides loopback and the bound host. */
  allowedHosts: string[];
  /** The admin token from the environment, when given. */
  token?: string;
}

export function publicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UsageError(`--public-url must be an http(s) URL, got '${value}'`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username || u.password) {
    throw new UsageError(`--public-url must be an http(s) URL without query, fragment or credentials, got '${value}'`);
  }
  return u.toString().replace(/\/+$/, '');
}

export function adminTokenFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const t = env.SERVICE_HOOKS_RELAY_TOKEN;
  if (t === undefined || t === '') return undefined;
  if (t.length < 16 || /\s/.test(t)) throw new UsageError('SERVICE_HOOKS_RELAY_TOKEN must be at least 16 characters without spaces');
  return t;
}

/** Resolves the public-endpoint flags against the rest of the relay's settings. */
export function publicRelayOptions(
  flags: PublicFlags,
  base: {
    host?: string;
    allowCidr: string[];
    trustProxy: readonly string[];
    secrets: string[];
    channels: Record<string, { secrets?: string[] }>;
    allowedHosts: string[];
  },
  io: CliIO,
  /** Where a warning goes: the relay's log (text or JSON lines). */
  warn: RelayLog = (m) => io.stderr.write(`relay: ${m}\n`),
): PublicRelayOptions {
  if ((flags['tls-cert'] === undefined) !== (flags['tls-key'] === undefined)) throw new UsageError('--tls-cert and --tls-key go together');
  let tls: TlsMaterial | undefined;
  let settings;
  try {
    if (flags['tls-cert'] && flags['tls-key']) tls = loadTls({ cert: resolve(io.cwd, flags['tls-cert']), key: resolve(io.cwd, flags['tls-key']) });
    settings = publicSettings({
      public: flags.public ?? false,
      tls: tls !== undefined,
      trustProxy: base.trustProxy.length > 0,
      host: base.host,
      allowCidr: base.allowCidr,
    });
  } catch (err) {
    if (err instanceof TlsConfigError || err instanceof PublicConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (settings.requireVerified) {
    const bare = unsignedChannels(base.secrets, base.channels);
    if (bare) throw new UsageError(bare);
  }
  const url = publicUrl(flags['public-url']);
  if (flags.public && !url) {
    warn(
      '--public without --public-url: channel URLs name the listen address and /api accepts only loopback Host names; pass --public-url https://<your host>',
      { level: 'warn' },
    );
  }
  return {
    ...settings,
    tls,
    publicUrl: url,
    allowedHosts: [...base.allowedHosts, ...(url ? [new URL(url).hostname] : [])],
    token: adminTokenFromEnv(io.env),
  };
}
