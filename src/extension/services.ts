// Shared state of the extension: the service client (built lazily), the repositories, the relay.
import type * as vscode from 'vscode';
import type { RepoRef } from '../core/tree';
import { settings } from './config';
import type { ServiceClientLike, ServiceErrorLike } from './contracts';
import { createServiceClient } from './deps';
import { resolveRepositories } from './repos';
import type { RelayManager } from './relayManager';
import type { TokenStore } from './tokenStore';

/** Raised when a command needs the token and none is stored; classified like a 401 (offers "Sign In"). */
export class NotSignedInError extends Error implements ServiceErrorLike {
  override name = 'NotSignedInError';
  kind = 'http' as const;
  status = 401;
  constructor() {
    super('Not signed in to the service.');
  }
}

export class Services {
  private clientCache: { key: string; client: Promise<ServiceClientLike> } | undefined;
  private reposCache: Promise<RepoRef[]> | undefined;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly tokens: TokenStore,
    readonly relay: RelayManager,
  ) {}

  /** A client for the configured base URL and the stored token (or `token` to validate a new one). */
  async client(token?: string): Promise<ServiceClientLike> {
    const t = token ?? (await this.tokens.get());
    if (!t) throw new NotSignedInError();
    const { baseUrl } = settings();
    if (token !== undefined) return createServiceClient(baseUrl, token);
    const key = `${baseUrl}\n${t}`;
    if (this.clientCache?.key !== key) this.clientCache = { key, client: createServiceClient(baseUrl, t) };
    return this.clientCache.client;
  }

  repositories(): Promise<RepoRef[]> {
    this.reposCache ??= resolveRepositories();
    return this.reposCache;
  }

  /** Forget cached clients and repositories (settings changed, Refresh, sign-in). */
  invalidate(): void {
    this.clientCache = undefined;
    this.reposCache = undefined;
  }
}
