// The remote relay the editor remembers between sessions: its address (globalState), its token
// (SecretStorage only, under the address), and the last address typed into "Connect to Relay…"
// (kept after Disconnect, offered first next time).
import type * as vscode from 'vscode';
import { RELAY_STORAGE } from '../ids';

const tokenKey = (httpUrl: string) => RELAY_STORAGE.remoteTokenPrefix + httpUrl;

export class RemoteMemory {
  constructor(
    private readonly globalState: vscode.Memento,
    private readonly secrets: vscode.SecretStorage,
  ) {}

  /** The address Connect to Relay… offers first: the last one typed, else the one remembered. */
  get lastAddress(): string | undefined {
    return this.globalState.get<string>(RELAY_STORAGE.lastAddress) ?? this.remembered()?.address;
  }

  /** Keeps what was typed into Connect to Relay…. */
  async typed(input: string): Promise<void> {
    await this.globalState.update(RELAY_STORAGE.lastAddress, input);
  }

  /** The remote relay connected to last (its REST base), if it was not disconnected. */
  remembered(): { address: string } | undefined {
    return this.globalState.get<{ address: string }>(RELAY_STORAGE.remote);
  }

  token(address: string): Thenable<string | undefined> {
    return this.secrets.get(tokenKey(address));
  }

  /** Remembers the relay at `httpUrl` and its token, for the next activation. */
  async remember(httpUrl: string, token: string): Promise<void> {
    await this.secrets.store(tokenKey(httpUrl), token);
    await this.globalState.update(RELAY_STORAGE.remote, { address: httpUrl });
  }

  /** Forgets the remembered relay and the token of `address` (the resume points stay). */
  async forget(address: string | undefined): Promise<void> {
    if (address) await this.secrets.delete(tokenKey(address));
    await this.globalState.update(RELAY_STORAGE.remote, undefined);
  }
}
