// The service token lives only in SecretStorage: never in settings, logs or messages. It is kept
// per base URL, so a settings change (a workspace pointing serviceHooks.baseUrl elsewhere) never
// sends a token to an address it was not created for.
import type * as vscode from 'vscode';
import { LEGACY_SECRET_KEY, SECRET_KEY } from '../ids';

/** The SecretStorage key of the token for one base URL. */
export function tokenKey(baseUrl: string): string {
  return `${SECRET_KEY}@${baseUrl.replace(/\/+$/, '').toLowerCase()}`;
}

export class TokenStore implements vscode.Disposable {
  private readonly cached = new Map<string, string | undefined>();
  /** Counts writes (set, clear, a change told by SecretStorage): a read that a write overtook does not cache what it read. */
  private writes = 0;
  private readonly listeners = new Set<() => void>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (!e.key.startsWith(SECRET_KEY)) return;
      this.writes++;
      this.cached.clear();
      for (const l of this.listeners) l();
    });
  }

  /** The token stored for `baseUrl`, if any. */
  async get(baseUrl: string): Promise<string | undefined> {
    const key = tokenKey(baseUrl);
    if (this.cached.has(key)) return this.cached.get(key);
    const before = this.writes;
    const read = (await this.secrets.get(key)) || undefined;
    // A set() or clear() while the read was on its way: the read is older than what it wrote (it
    // cached the miss over a new token, and Sign In looked signed out until the next change).
    if (this.writes !== before) return this.cached.has(key) ? this.cached.get(key) : read;
    this.cached.set(key, read);
    return read;
  }

  async set(baseUrl: string, token: string): Promise<void> {
    const key = tokenKey(baseUrl);
    this.writes++;
    this.cached.set(key, token);
    await this.secrets.store(key, token);
  }

  async clear(baseUrl: string): Promise<void> {
    const key = tokenKey(baseUrl);
    this.writes++;
    this.cached.set(key, undefined);
    await this.secrets.delete(key);
    await this.secrets.delete(LEGACY_SECRET_KEY);
  }

  /** A token stored by an earlier version under one key for every address (which address is unknown). */
  async legacy(): Promise<string | undefined> {
    return (await this.secrets.get(LEGACY_SECRET_KEY)) || undefined;
  }

  async dropLegacy(): Promise<void> {
    await this.secrets.delete(LEGACY_SECRET_KEY);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  dispose(): void {
    this.subscription.dispose();
    this.listeners.clear();
  }
}
