// Channels created through the admin API (POST /api/channels): each has its own signing secrets
// and its own token. Persisted in <data>/channels.json (mode 0600, written atomically). A token is
// stored only as its SHA-256 (it is 32 random bytes, so a plain hash is enough: nothing to guess);
// the secrets must stay readable because the relay verifies HMACs with them.
// A deleted channel's name is remembered: its URL answers 404 until the name is created again,
// so a webhook still pointing at it never falls back to an implicit, unverified channel.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../../../src/core/randomToken';
import { readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../../../src/core/writeFileAtomic';
import { join } from 'node:path';
import { channelKey } from '../base/channelKey';

export const CHANNELS_FILE = 'channels.json';
/** A channel token: recognisable in a leak scan, and never confused with the admin token. */
export const CHANNEL_TOKEN_PREFIX = 'shc_';
export const MAX_CHANNELS = 10_000;

export interface StoredChannel {
  name: string;
  secrets: string[];
  /** `sha256:<hex>` of the channel token. */
  tokenHash: string;
  createdAt: string;
  /**
   * This channel's generation: random, new at each creation, stored with each of its deliveries
   * (./channelKey.ts). Absent on channels created before generations existed.
   */
  gen?: string;
}

export interface ChannelsFile {
  version: 1;
  channels: StoredChannel[];
  /** Names deleted and not created again (their ingress answers 404). */
  deleted: string[];
}

/** Why a create or delete was refused; the API maps `kind` to a status. */
export class ChannelError extends Error {
  override name = 'ChannelError';
  constructor(
    readonly kind: 'exists' | 'not-found' | 'full',
    message: string,
  ) {
    super(message);
  }
}

export function hashToken(token: string): string {
  return 'sha256:' + createHash('sha256').update(token).digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function parseFile(path: string, text: string): ChannelsFile {
  const bad = (why: string) => new Error(`${path}: ${why}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw bad(`not JSON (${(err as Error).message})`);
  }
  const f = raw as Partial<ChannelsFile>;
  if (typeof raw !== 'object' || raw === null || f.version !== 1 || !Array.isArray(f.channels)) throw bad('expected { version: 1, channels: [...] }');
  for (const c of f.channels) {
    const ok =
      typeof c?.name === 'string' &&
      typeof c.tokenHash === 'string' &&
      (c.gen === undefined || (typeof c.gen === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(c.gen))) &&
      Array.isArray(c.secrets) &&
      c.secrets.every((s) => typeof s === 'string' && s !== '');
    if (!ok) throw bad(`malformed channel entry ${JSON.stringify(c?.name ?? null)}`);
  }
  const deleted = Array.isArray(f.deleted) ? f.deleted.filter((n): n is string => typeof n === 'string') : [];
  return { version: 1, channels: f.channels, deleted };
}

/**
 * Where the registry keeps its channels: the data folder's channels.json (one relay), or a shared
 * store every relay instance reads (NATS JetStream KV, relay/server/nats/channelKv.ts). A change
 * resolves once it is durable there; it rejects with ChannelError('exists') when another instance
 * created the name first.
 */
export interface ChannelPersistence {
  created(channel: StoredChannel, all: ChannelsFile): void | Promise<void>;
  deleted(name: string, all: ChannelsFile): void | Promise<void>;
  /** A channel's secrets changed (PATCH /api/channels/<name>); same name, same token. */
  updated(channel: StoredChannel, all: ChannelsFile): void | Promise<void>;
}

export class ChannelRegistry {
  private readonly byName = new Map<string, StoredChannel>();
  private readonly byHash = new Map<string, string>();
  private readonly deleted = new Set<string>();
  /** Told when another relay instance deleted a channel this one served (applyDeleted). */
  private readonly deletedElsewhere: ((name: string) => void)[] = [];
  private persistence: ChannelPersistence = {
    created: (_c, all) => writeFileAtomicSync(this.path, JSON.stringify(all, null, 2) + '\n'),
    deleted: (_n, all) => writeFileAtomicSync(this.path, JSON.stringify(all, null, 2) + '\n'),
    updated: (_c, all) => writeFileAtomicSync(this.path, JSON.stringify(all, null, 2) + '\n'),
  };

  private constructor(readonly path: string) {}

  /** Keeps the channels in `persistence` from now on (the file is no longer written). */
  persistIn(persistence: ChannelPersistence): void {
    this.persistence = persistence;
  }

  /** A channel created by another relay instance (seen through the shared store). */
  applyCreated(c: StoredChannel): void {
    const old = this.byName.get(c.name);
    if (old) this.byHash.delete(old.tokenHash);
    this.deleted.delete(c.name);
    this.index(c);
  }

  /**
   * A channel deleted by another relay instance: its token stops working here too, and the
   * listeners (onDeletedElsewhere) close what was opened with it. A deletion made here is already
   * gone from byName when the shared store echoes it, so it is told once, by the API.
   */
  applyDeleted(name: string): void {
    const c = this.byName.get(name);
    this.deleted.add(name);
    if (!c) return;
    this.byName.delete(name);
    this.byHash.delete(c.tokenHash);
    for (const told of this.deletedElsewhere) told(name);
  }

  /** Calls `told` with the name of each channel another relay instance deletes from now on. */
  onDeletedElsewhere(told: (name: string) => void): void {
    this.deletedElsewhere.push(told);
  }

  /** Loads `<dataDir>/channels.json` (none yet: an empty registry). A malformed file is an error, never silently emptied. */
  static open(dataDir: string): ChannelRegistry {
    const reg = new ChannelRegistry(join(dataDir, CHANNELS_FILE));
    let text: string;
    try {
      text = readFileSync(reg.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return reg;
      throw err;
    }
    const file = parseFile(reg.path, text);
    for (const c of file.channels) reg.index(c);
    for (const n of file.deleted) if (!reg.byName.has(n)) reg.deleted.add(n);
    return reg;
  }

  private index(c: StoredChannel): void {
    this.byName.set(c.name, c);
    this.byHash.set(c.tokenHash, c.name);
  }

  private snapshot(): ChannelsFile {
    return { version: 1, channels: [...this.byName.values()], deleted: [...this.deleted] };
  }

  get size(): number {
    return this.byName.size;
  }

  get(name: string): StoredChannel | undefined {
    return this.byName.get(name);
  }

  list(): StoredChannel[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The identity the store knows channel `name` by now: with the API channel's generation, else the name. */
  keyOf(name: string): string {
    return channelKey(name, this.byName.get(name)?.gen);
  }

  wasDeleted(name: string): boolean {
    return this.deleted.has(name);
  }

  /** Creates a channel and returns its token (the only time it exists outside the caller). */
  async create(name: string, secrets: readonly string[], now = new Date()): Promise<{ channel: StoredChannel; token: string }> {
    if (this.byName.has(name)) throw new ChannelError('exists', `channel '${name}' already exists`);
    if (this.byName.size >= MAX_CHANNELS) throw new ChannelError('full', `the relay holds its maximum of ${MAX_CHANNELS} channels`);
    const token = CHANNEL_TOKEN_PREFIX + randomToken(32);
    const channel: StoredChannel = { name, secrets: [...secrets], tokenHash: hashToken(token), createdAt: now.toISOString(), gen: randomToken(8) };
    const wasDeleted = this.deleted.delete(name);
    this.index(channel);
    try {
      await this.persistence.created(channel, this.snapshot());
    } catch (err) {
      this.byName.delete(name);
      this.byHash.delete(channel.tokenHash);
      if (wasDeleted) this.deleted.add(name);
      throw err;
    }
    return { channel, token };
  }

  /** Replaces a channel's secrets (rotation); its token stays. Undone when it cannot be persisted. */
  async setSecrets(name: string, secrets: readonly string[]): Promise<StoredChannel> {
    const c = this.byName.get(name);
    if (!c) throw new ChannelError('not-found', `no channel '${name}'`);
    const next: StoredChannel = { ...c, secrets: [...secrets] };
    this.byName.set(name, next);
    try {
      await this.persistence.updated(next, this.snapshot());
    } catch (err) {
      this.byName.set(name, c);
      throw err;
    }
    return next;
  }

  async delete(name: string): Promise<void> {
    const c = this.byName.get(name);
    if (!c) throw new ChannelError('not-found', `no channel '${name}'`);
    this.byName.delete(name);
    this.byHash.delete(c.tokenHash);
    this.deleted.add(name);
    try {
      await this.persistence.deleted(name, this.snapshot());
    } catch (err) {
      this.deleted.delete(name);
      this.index(c);
      throw err;
    }
  }

  /** The channel a token belongs to. The lookup key is the token's SHA-256, confirmed in constant time. */
  channelOf(token: string | undefined): string | undefined {
    if (!token || !token.startsWith(CHANNEL_TOKEN_PREFIX)) return undefined;
    const h = hashToken(token);
    const name = this.byHash.get(h);
    const c = name === undefined ? undefined : this.byName.get(name);
    return c && sameHash(c.tokenHash, h) ? c.name : undefined;
  }
}
