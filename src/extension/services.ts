// Shared state of the extension: the service client (built lazily), the repositories, the relay.
import * as vscode from 'vscode';
import { baseUrlProblem } from '../core/input';
import type { RepoRef } from '../core/tree';
import { settings } from './config';
import type { ServiceClientLike } from './contracts';
import { createServiceClient } from './deps';
import { NotSignedInError, UserError } from './errors';
import { COMMANDS, OPEN_SETTINGS_ACTION } from './ids';
import { resolveRepositories } from './repos';
import type { RelayManager } from './relay/relayManager';
import type { TokenStore } from './storage/tokenStore';
import { checkTrust } from './trust/trust';

export { NotSignedInError };

/** A malformed serviceHooks.baseUrl, as an error with an "Open Settings" button. */
export function checkBaseUrl(baseUrl: string): void {
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new UserError(problem, [OPEN_SETTINGS_ACTION]);
}

export class Services {
  private clientCache: { key: string; client: Promise<ServiceClientLike> } | undefined;
  private reposCache: Promise<RepoRef[]> | undefined;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly tokens: TokenStore,
    readonly relay: RelayManager,
  ) {}

  /** A client for the configured base URL and its stored token (or `token` to validate a new one). */
  async client(token?: string): Promise<ServiceClientLike> {
    checkTrust(COMMANDS.signIn, 'Using the service'); // every read and write with the token: off in Restricted Mode
    const { baseUrl } = settings();
    checkBaseUrl(baseUrl);
    if (token !== undefined) return createServiceClient(baseUrl, token);
    const t = (await this.tokens.get(baseUrl)) ?? (await this.adoptLegacyToken(baseUrl));
    if (!t) throw new NotSignedInError();
    const key = `${baseUrl}\n${t}`;
    if (this.clientCache?.key !== key) this.clientCache = { key, client: createServiceClient(baseUrl, t) };
    return this.clientCache.client;
  }

  /** The token for the configured base URL, without asking anything (tree rendering). */
  async currentToken(): Promise<string | undefined> {
    return this.tokens.get(settings().baseUrl);
  }

  /**
   * A token stored by an earlier version is not tied to an address: it is sent only after the user
   * agrees to send it to this one (then it is kept for this address alone).
   */
  async adoptLegacyToken(baseUrl: string): Promise<string | undefined> {
    const legacy = await this.tokens.legacy();
    if (!legacy) return undefined;
    const send = 'Send Token';
    const choice = await vscode.window.showWarningMessage(
      `Send your stored service token to ${baseUrl}?`,
      {
        modal: true,
        detail:
          'It was stored by an earlier version of the extension, which did not record the address it was created for. It will be kept for this address only.',
      },
      send,
    );
    if (choice !== send) return undefined;
    await this.tokens.set(baseUrl, legacy);
    await this.tokens.dropLegacy();
    return legacy;
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
