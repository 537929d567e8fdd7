// The remote relay of "Connect to Relay…": connecting with an address and a token (kept in
// SecretStorage, never settings), coming back to it at activation, closing and forgetting it.
// The connection itself and its state belong to the ConnectionOwner.
import { RelayApiError } from '../../../relay/client/apiError';
import type { ConnectionWhere } from '../../core/connection/machine';
import { describeConnectError, parseRelayAddress } from '../../core/tree';
import { UserError } from '../errors';
import { log } from '../log';
import { refusal, type ConnectionOwner } from './connectionOwner';
import type { RemoteMemory } from './remoteMemory';

export class RemoteRelay {
  constructor(
    private readonly owner: ConnectionOwner,
    /** The remote relay remembered between sessions (address, token, the last address typed). */
    private readonly remembered: RemoteMemory,
    /** The relay process Start Relay ran is running (one relay in use at a time). */
    private readonly processRunning: () => boolean,
  ) {}

  /** The address Connect to Relay… offers first: the last one typed (kept after Disconnect). */
  get lastAddress(): string | undefined {
    return this.remembered.lastAddress;
  }

  /** Connects to a remote relay (address + token), keeps the token in SecretStorage; forwards its set-ups' channels. */
  async connect(input: string, token: string): Promise<void> {
    const address = parseRelayAddress(input);
    if ('problem' in address) throw new UserError(address.problem);
    if (!token.trim()) throw new UserError('Enter the relay token.');
    if (this.processRunning()) throw new UserError('The relay started here is running. Stop Relay before connecting to another relay.');
    await this.remembered.typed(input.trim());
    await this.owner.serial(async () => {
      try {
        await this.owner.openRelay(address, token.trim(), { kind: 'remote', address });
      } catch (err) {
        throw new UserError(
          describeConnectError(address.label, err as { status?: number; code?: string; cause?: { code?: string }; message?: string }, address.tls),
        );
      }
      // In the same step: a restore queued meanwhile (Reload Window) finds this relay, not the one before.
      await this.remembered.remember(address.httpUrl, token.trim());
    });
  }

  /** Reconnects to the remote relay remembered from an earlier session (activation, forward URL change). */
  restore(): Promise<boolean> {
    return this.owner.serial(async () => {
      const remembered = this.remembered.remembered();
      if (!remembered) return false;
      const address = parseRelayAddress(remembered.address);
      const token = await this.remembered.token(remembered.address);
      if ('problem' in address || !token) return false;
      const where: ConnectionWhere = { kind: 'remote', address };
      try {
        await this.owner.openRelay(address, token, where, true); // one subscription at a time: nothing is forwarded twice
        return true;
      } catch (err) {
        log().warn(`relay ${address.label}: ${(err as Error).message}`);
        const status = err instanceof RelayApiError ? err.status : undefined;
        this.owner.machine.dispatch(
          status === 401 || status === 403
            ? refusal(address.label, status, where)
            : { type: 'close', offline: true, detail: `Cannot connect to ${address.label}: ${(err as Error).message}`, where },
        );
        return false;
      }
    });
  }

  /**
   * Closes the connection as closing the editor does: the remote relay's token and the resume point
   * stay, so restore() (the next activation) resumes where forwarding stopped.
   */
  async close(): Promise<void> {
    await this.owner.serial(async () => {
      const remote = this.owner.remote;
      await this.owner.detach(
        remote ? { type: 'close', offline: true, detail: `Not connected to ${remote.label}.`, where: { kind: 'remote', address: remote } } : { type: 'close' },
      );
    });
  }

  /** Disconnect from Relay: closes the connection and forgets the token (the resume point stays); then a local relay on the port is attached again. */
  async disconnect(): Promise<boolean> {
    const address = await this.owner.serial(async () => {
      const address = this.owner.remote?.httpUrl ?? this.remembered.remembered()?.address;
      await this.owner.detach({ type: 'close' });
      await this.remembered.forget(address);
      return address;
    });
    return address !== undefined;
  }
}
