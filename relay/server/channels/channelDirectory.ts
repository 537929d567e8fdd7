// Which channels a relay serves, and with which secrets. Four kinds, looked up in this order:
//   api       created through POST /api/channels (channels.json): own secrets and token; no
//             server-side targets: its deliveries go to its token's subscribers (the editor,
//             `forward`), not to the relay-wide --forward targets, which belong to the operator
//   config    named in --config: their own secrets/targets, or the relay-wide ones
//   default   `/hooks` and `/hooks/default`: the relay-wide --secret and --forward
//   implicit  any other valid name gets the relay-wide settings (local relays only)
// A deleted API channel answers 404 until created again, whatever the mode. A strict relay
// (--public) serves no implicit channel and no channel without a secret.
import type { ChannelInfo, ChannelSource, CreatedChannel } from '../../../src/core/relay/protocol';
import { ingressUrl } from '../../../src/core/relay/ingressChannel';
import type { KeyedChannelStatus } from '../base/storeTypes';
import { ChannelRegistry } from './channelRegistry';
import { channelOfKey } from '../base/channelKey';
import { RelayConfigError } from '../base/errors';

export interface ChannelSettings {
  secrets: string[];
  forward: string[];
}

/** A served channel; `gen`: an API channel's generation, stored with each delivery (./channelKey.ts). */
export type Lookup = { ok: true; source: ChannelSource; settings: ChannelSettings; gen?: string } | { ok: false; error: string };

export interface DirectoryOptions {
  /** The settings of a config, default or implicit channel (relay/server/channels/channels.ts). */
  settingsOf: (name: string) => ChannelSettings;
  /** Names defined in --config. */
  configured: readonly string[];
  /** Relay-wide --forward targets (the default, config and implicit channels'; not API channels'). */
  forward: readonly string[];
  /** --public: no implicit channels, no channel without a secret. */
  strict: boolean;
  /** The base of ingress URLs: --public-url, else the listen address. */
  ingressBase: () => string;
}

const NO_COUNTS = { received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0 };

export class ChannelDirectory {
  private readonly configured: Set<string>;

  constructor(
    readonly registry: ChannelRegistry,
    private readonly options: DirectoryOptions,
  ) {
    this.configured = new Set(options.configured);
  }

  get strict(): boolean {
    return this.options.strict;
  }

  /** Where the service posts: --public-url, else the listen address (no trailing slash). */
  get ingressBase(): string {
    return this.options.ingressBase();
  }

  ingressUrl(name: string): string {
    return ingressUrl(this.ingressBase, name);
  }

  /** The channel a delivery to /hooks/<name> goes to, or why there is none (404). */
  lookup(name: string): Lookup {
    const found = this.find(name);
    if (!found.ok || !this.options.strict || found.settings.secrets.length > 0) return found;
    return { ok: false, error: `channel '${name}' has no secret, and this relay accepts only verified deliveries` };
  }

  private find(name: string): Lookup {
    const api = this.registry.get(name);
    if (api) return { ok: true, source: 'api', settings: { secrets: api.secrets, forward: [] }, ...(api.gen ? { gen: api.gen } : {}) };
    if (this.configured.has(name)) return { ok: true, source: 'config', settings: this.options.settingsOf(name) };
    if (this.registry.wasDeleted(name)) return { ok: false, error: `channel '${name}' was deleted` };
    if (name === 'default') return { ok: true, source: 'default', settings: this.options.settingsOf(name) };
    if (this.options.strict) return { ok: false, error: `no channel '${name}'` };
    return { ok: true, source: 'implicit', settings: this.options.settingsOf(name) };
  }

  /**
   * The signing secrets now of the channel identity `key` (./channelKey.ts), rotations included; undefined
   * when that channel is gone: deleted, or its name now another channel's (re-created, or an API
   * channel over an implicit or --config name). The signature doctor checks a delivery with these,
   * never with the secrets of a later channel that took its name.
   */
  secretsOfKey(key: string): string[] | undefined {
    const name = channelOfKey(key);
    if (this.registry.keyOf(name) !== key) return undefined;
    const found = this.lookup(name);
    return found.ok ? found.settings.secrets : undefined;
  }

  /** Why `name` cannot be created through the API (409), or undefined. */
  taken(name: string): string | undefined {
    if (this.registry.get(name)) return `channel '${name}' already exists`;
    if (this.configured.has(name)) return `channel '${name}' is defined in --config`;
    if (name === 'default') return `channel 'default' is the relay's own (its --secret and --forward)`;
    return undefined;
  }

  /** Why `name` cannot be deleted through the API (409), or undefined. */
  fixed(name: string): string | undefined {
    if (this.registry.get(name)) return undefined;
    if (this.configured.has(name)) return `channel '${name}' is defined in --config; remove it there`;
    if (name === 'default') return `channel 'default' is the relay's own and cannot be deleted`;
    return undefined;
  }

  async create(name: string, secrets: readonly string[]): Promise<CreatedChannel> {
    const { token } = await this.registry.create(name, secrets);
    return { name, ingressUrl: this.ingressUrl(name), token };
  }

  /** A served channel's description (not one a strict relay refuses, such as a secretless `default`). */
  info(name: string, counts: readonly KeyedChannelStatus[]): ChannelInfo | undefined {
    const found = this.lookup(name);
    if (!found.ok) return undefined;
    const key = this.registry.keyOf(name);
    const { key: _key, ...c } = counts.find((s) => s.key === key) ?? { key };
    if (found.source === 'implicit' && !('name' in c)) return undefined;
    const createdAt = this.registry.get(name)?.createdAt;
    return {
      ...NO_COUNTS,
      ...c,
      name,
      source: found.source,
      ingressUrl: this.ingressUrl(name),
      secrets: found.settings.secrets.length,
      ...(createdAt ? { createdAt } : {}),
    };
  }

  /** Every API, config and default channel, and every implicit one that has deliveries; by name. */
  list(counts: readonly KeyedChannelStatus[]): ChannelInfo[] {
    const names = new Set<string>([...this.registry.list().map((c) => c.name), ...this.configured, 'default', ...counts.map((c) => c.name)]);
    const out: ChannelInfo[] = [];
    for (const n of [...names].sort()) {
      const i = this.info(n, counts);
      if (i) out.push(i);
    }
    return out;
  }
}

/** Opens `<dataDir>/channels.json` into a directory; a malformed file stops the start (RelayConfigError). */
export function openChannelDirectory(dataDir: string, options: DirectoryOptions): ChannelDirectory {
  let registry: ChannelRegistry;
  try {
    registry = ChannelRegistry.open(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== undefined) throw err;
    throw new RelayConfigError((err as Error).message);
  }
  return new ChannelDirectory(registry, options);
}
