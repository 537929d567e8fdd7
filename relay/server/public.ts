// `--public`: the safe preset for a relay on the internet. Pure, so the CLI and tests share it.
// It refuses a relay that would take deliveries in clear text without a proxy in front, binds all
// interfaces with TLS and loopback without (the proxy is on this machine) unless --host says otherwise, accepts deliveries only from the service's networks unless told
// otherwise, and never accepts an unverified delivery (every served channel must have a secret).

export interface PublicInput {
  public: boolean;
  tls: boolean;
  /** Whether --trust-proxy names a proxy. */
  trustProxy: boolean;
  host?: string;
  allowCidr: readonly string[];
}

export interface PublicSettings {
  host: string;
  allowCidr: string[];
  /** Deliveries to a channel without secrets are refused, and unknown channels answer 404. */
  requireVerified: boolean;
}

/** Thrown when `--public` is asked for in a shape that would not be safe: the CLI exits 2. */
export class PublicConfigError extends Error {
  override name = 'PublicConfigError';
}

export const PUBLIC_NEEDS_TLS =
  '--public needs HTTPS: pass --tls-cert FILE --tls-key FILE, or run behind a TLS reverse proxy and pass --trust-proxy <its address>';

export function publicSettings(input: PublicInput): PublicSettings {
  if (!input.public) return { host: input.host ?? '127.0.0.1', allowCidr: [...input.allowCidr], requireVerified: false };
  if (!input.tls && !input.trustProxy) throw new PublicConfigError(PUBLIC_NEEDS_TLS);
  return {
    // Plain HTTP is for the proxy on this machine: never all interfaces unless --host says so.
    host: input.host ?? (input.tls ? '0.0.0.0' : '127.0.0.1'),
    allowCidr: input.allowCidr.length > 0 ? [...input.allowCidr] : ['service'],
    requireVerified: true,
  };
}

/**
 * The channels a public relay serves from its configuration must each have a secret (their own
 * or the relay-wide `--secret`): returns the sentence that says which do not, or undefined.
 */
export function unsignedChannels(relaySecrets: readonly string[], channels: Record<string, { secrets?: string[] }>): string | undefined {
  const bare = Object.entries(channels)
    .filter(([, c]) => (c.secrets ?? relaySecrets).length === 0)
    .map(([n]) => n);
  if (bare.length === 0) return undefined;
  return `--public never accepts unverified deliveries: give channel(s) ${bare.map((n) => `'${n}'`).join(', ')} secrets in --config (or a relay-wide --secret)`;
}
