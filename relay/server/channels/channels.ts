// Channel settings: each channel's secrets and forward targets, from its own entry in the config or
// the relay-wide defaults. Checked once at start-up (RelayConfigError), then resolved per delivery.
import { RelayConfigError } from '../base/errors';

import { CHANNEL_NAME_RE } from '../../../src/core/relay/channelName';

/** Channel names: one rule for both stores (src/core/relay/channelName.ts). */
export const CHANNEL_RE = CHANNEL_NAME_RE;

export interface ChannelConfig {
  secrets?: string[];
  forward?: string[];
}

export interface ChannelDefaults {
  /** Secrets and targets of every channel not configured in `channels`. */
  secrets?: string[];
  forward?: string[];
  channels?: Record<string, ChannelConfig>;
}

/** Secrets shorter than this are accepted with a warning at start-up. */
export const MIN_SECRET_BYTES = 16;

/** At most this many resolved channels are cached (names come from request paths). */
const CACHE_LIMIT = 10_000;

export class ChannelConfigs {
  private readonly cache = new Map<string, Required<ChannelConfig>>();

  constructor(private readonly options: ChannelDefaults) {
    const channels = options.channels ?? {};
    for (const name of Object.keys(channels)) {
      if (!CHANNEL_RE.test(name)) throw new RelayConfigError(`invalid channel name in config: '${name}'`);
    }
    for (const u of [...(options.forward ?? []), ...Object.values(channels).flatMap((c) => c.forward ?? [])]) checkTarget(u);
    for (const [where, list] of this.secretLists()) {
      if (list.some((s) => s === ''))
        throw new RelayConfigError(`empty secret in ${where}: a delivery signed with the empty key would be accepted as verified`);
    }
  }

  /**
   * The warning for a relay that accepts unsigned deliveries (no secret for the default and
   * implicit channels, or a --config channel without one), or undefined.
   */
  unsignedWarning(strict: boolean): string | undefined {
    if (strict) return undefined;
    const relayWide = this.options.secrets ?? [];
    const open = Object.entries(this.options.channels ?? {})
      .filter(([, c]) => (c.secrets ?? relayWide).length === 0)
      .map(([n]) => `'${n}'`);
    if (relayWide.length > 0 && open.length === 0) return undefined;
    const which =
      relayWide.length === 0 ? `channel 'default' and every implicit channel${open.length ? `, and ${open.join(', ')}` : ''}` : `channel(s) ${open.join(', ')}`;
    return `${which} accept deliveries without a signature: anyone who can reach this port can have them forwarded to your app (give --secret, or secrets in --config)`;
  }

  /** Warnings (never the secrets themselves) for secrets shorter than MIN_SECRET_BYTES. */
  weakSecrets(): string[] {
    const out: string[] = [];
    for (const [where, list] of this.secretLists()) {
      list.forEach((s, i) => {
        const n = Buffer.byteLength(s, 'utf8');
        if (n < MIN_SECRET_BYTES) out.push(`secret #${i + 1} of ${where} has ${n} bytes; use at least ${MIN_SECRET_BYTES} (e.g. openssl rand -hex 32)`);
      });
    }
    return out;
  }

  private secretLists(): [string, readonly string[]][] {
    const lists: [string, readonly string[]][] = [['the relay-wide secrets', this.options.secrets ?? []]];
    for (const [name, c] of Object.entries(this.options.channels ?? {})) lists.push([`channel '${name}'`, c.secrets ?? []]);
    return lists;
  }

  /** Every target any channel forwards to (the defaults and each configured channel's). */
  allTargets(): string[] {
    const channels = Object.values(this.options.channels ?? {});
    return [...new Set([...(this.options.forward ?? []), ...channels.flatMap((c) => c.forward ?? [])])];
  }

  /** The secrets and targets of `name` (a valid channel name). */
  get(name: string): Required<ChannelConfig> {
    let cfg = this.cache.get(name);
    if (!cfg) {
      const own = Object.hasOwn(this.options.channels ?? {}, name) ? this.options.channels![name] : undefined;
      cfg = { secrets: own?.secrets ?? this.options.secrets ?? [], forward: own?.forward ?? this.options.forward ?? [] };
      if (this.cache.size < CACHE_LIMIT) this.cache.set(name, cfg);
    }
    return cfg;
  }
}

function checkTarget(u: string): void {
  let protocol: string;
  try {
    protocol = new URL(u).protocol;
  } catch {
    throw new RelayConfigError(`forward target is not a URL: '${u}'`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new RelayConfigError(`forward target must be http(s): '${u}'`);
}
