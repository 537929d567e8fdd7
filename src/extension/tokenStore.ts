// The service token lives only in SecretStorage: never in settings, logs or messages.
import type * as vscode from 'vscode';
import { SECRET_KEY } from './ids';

export class TokenStore {
  private cached: string | undefined | null = null; // null = not read yet
  private readonly listeners = new Set<() => void>();

  constructor(private readonly secrets: vscode.SecretStorage) {
    secrets.onDidChange((e) => {
      if (e.key !== SECRET_KEY) return;
      this.cached = null;
      for (const l of this.listeners) l();
    });
  }

  async get(): Promise<string | undefined> {
    if (this.cached === null) this.cached = (await this.secrets.get(SECRET_KEY)) || undefined;
    return this.cached;
  }

  async set(token: string): Promise<void> {
    this.cached = token;
    await this.secrets.store(SECRET_KEY, token);
  }

  async clear(): Promise<void> {
    this.cached = undefined;
    await this.secrets.delete(SECRET_KEY);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}
