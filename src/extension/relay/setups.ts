// What the editor keeps about its forward set-ups: the set-ups themselves (globalState, no secrets)
// and each set-up channel's signing secret (SecretStorage only), per relay base URL.
import type * as vscode from 'vscode';
import { routeOf } from '../../core/relay/forwardRouting';
import type { ForwardSession } from '../../core/tree';
import { RELAY_STORAGE } from '../ids';
import type { TokenScope } from './connection';

export class ForwardSetups {
  constructor(
    private readonly globalState: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
    /** The forward URL setting: where a channel token's own channel goes without a set-up. */
    private readonly forwardUrl: () => string | undefined = () => undefined,
  ) {}

  all(): ForwardSession[] {
    return this.globalState.get<ForwardSession[]>(RELAY_STORAGE.sessions) ?? [];
  }

  of(relay: string | undefined): ForwardSession[] {
    return relay === undefined ? [] : this.all().filter((f) => f.relay === relay);
  }

  /** The app a delivery of `channel` (and `event`) on `relay` goes to: its set-up's (routes, filter), or (a channel token's own channel) the forward URL setting. */
  target(channel: string, relay: string | undefined, scope: TokenScope | undefined, event?: string): string | undefined {
    const session = this.of(relay).find((f) => f.channel === channel);
    if (session) return routeOf(session, event);
    if (scope?.kind === 'channel' && (scope.channel === undefined || scope.channel === channel)) return this.forwardUrl();
    return undefined;
  }

  /** Adds (or replaces) the set-up of its relay and channel. */
  async put(session: ForwardSession): Promise<void> {
    const others = this.all().filter((f) => !(f.relay === session.relay && f.channel === session.channel));
    await this.globalState.update(RELAY_STORAGE.sessions, [...others, session]);
  }

  async remove(relay: string, channel: string): Promise<ForwardSession | undefined> {
    const all = this.all();
    const ended = all.find((f) => f.relay === relay && f.channel === channel);
    if (ended)
      await this.globalState.update(
        RELAY_STORAGE.sessions,
        all.filter((f) => f !== ended),
      );
    return ended;
  }

  secret(relay: string, channel: string): Thenable<string | undefined> {
    return this.secrets.get(secretKey(relay, channel));
  }

  storeSecret(relay: string, channel: string, secret: string): Thenable<void> {
    return this.secrets.store(secretKey(relay, channel), secret);
  }
}

const secretKey = (relay: string, channel: string) => `${RELAY_STORAGE.channelSecretPrefix}${relay}#${channel}`;
