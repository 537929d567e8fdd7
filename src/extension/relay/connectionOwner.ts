// The one connection in use and the state machine that owns its state (src/core/connection/
// machine.ts): opening a connection (opener.ts), following its subscription (dropped, back,
// refused), closing it, and the forwarding lease. Connection changes run one at a time (serial).
// The RelayManager's journeys (Start Relay, Connect to Relay…, probe, restore) go through here.
import type { RelayStatus } from '../../../relay/client';
import { parseRelayAddress, RelayLiveList, type RelayAddress } from '../../core/tree';
import { ConnectionMachine, type ConnectionEvent, type ConnectionSnapshot, type ConnectionWhere } from '../../core/connection/machine';
import { log } from '../log';
import type { RelayConnection, TokenScope } from './connection';
import type { EditorForwarder } from './forwarding';
import { localBase, type RelayInUse } from './inUse';
import { ForwardLease } from './lease';
import { prepareConnection, type OpenerOptions } from './opener';

export class ConnectionOwner implements RelayInUse {
  /** The connection's state: the one owner; everything shown follows its changes. */
  readonly machine = new ConnectionMachine((phase, e) => log().warn(`relay: ${e.type} refused while ${phase}`));
  conn: RelayConnection | undefined;
  forwarder: EditorForwarder | undefined;
  tokenScope: TokenScope | undefined;
  private connSub: { dispose(): void } | undefined;
  /** Connection changes, one at a time (restore, probe, connect, set-ups). */
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private readonly lease: ForwardLease;
  private readonly opener: OpenerOptions;
  private readonly rowListeners = new Set<() => void>();
  private readonly ownsProcessNow: () => boolean;

  constructor(o: Pick<OpenerOptions, 'setups' | 'globalState'> & { leaseFile: string; ownsProcess: () => boolean }) {
    this.ownsProcessNow = o.ownsProcess;
    this.lease = new ForwardLease(o.leaseFile);
    this.opener = {
      setups: o.setups,
      globalState: o.globalState,
      lease: this.lease,
      onForwardProblem: (problem) => this.machine.dispatch({ type: 'forwardProblem', problem }),
      onLeaseLost: (forwarder) => void this.serial(() => this.leaseLost(forwarder)),
    };
  }

  get snapshot(): ConnectionSnapshot {
    return this.machine.snapshot;
  }

  /** Told when the rows of the connection in use change (its live list, its status); state changes go through the machine. */
  onRowsChanged(listener: () => void): { dispose(): void } {
    this.rowListeners.add(listener);
    return { dispose: () => this.rowListeners.delete(listener) };
  }

  get scope(): TokenScope | undefined {
    return this.tokenScope;
  }

  /** The base URL of the relay in use (remote, or http://127.0.0.1:<port>): forward set-ups are kept under it. */
  get base(): string | undefined {
    return this.remote?.httpUrl ?? (this.localPort !== undefined && this.conn ? localBase(this.localPort) : undefined);
  }

  get status(): RelayStatus | undefined {
    return this.conn?.status;
  }

  /** The relay process started by this window runs. */
  get ownsProcess(): boolean {
    return this.ownsProcessNow();
  }

  /** The connection in use's rows (empty without one). */
  get live(): RelayLiveList {
    return this.conn?.live ?? EMPTY;
  }

  /** The remote relay connected, being connected, or remembered while off ("Not connected to relay.example.com"). */
  get remote(): RelayAddress | undefined {
    const where = this.machine.snapshot.where;
    return where?.kind === 'remote' ? where.address : undefined;
  }

  /** The port of the local relay in use or being connected. */
  get localPort(): number | undefined {
    const where = this.machine.snapshot.where;
    return where?.kind === 'local' ? where.port : undefined;
  }

  /** Runs `fn` after every connection change before it: two never interleave (Reload Window restores while the Relay view probes). */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.queue.then(fn, fn).finally(() => this.queued--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A connection change is queued or running (whenConnected.ts waits it out). */
  get changing(): boolean {
    return this.queued > 0;
  }

  /** Resolves once the connection changes queued now have run. */
  settled(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  /**
   * Opens the relay at `address` with `token` and makes it the one in use (opener.ts). One that
   * forwards (or `closeFirst`) closes the one in use first, so nothing is forwarded twice; another
   * opens beside it and replaces it once open. One that fails to open leaves the state as it was.
   */
  async openRelay(address: RelayAddress, token: string, where: ConnectionWhere, closeFirst = false): Promise<void> {
    const before = this.machine.snapshot;
    const opening = await prepareConnection(this.opener, address, token, where.kind === 'remote' ? address.label : `port ${where.port}`);
    const { conn, forwarder } = opening;
    const beside = this.conn !== undefined && !forwarder && !closeFirst;
    if (!beside) await this.detach({ type: 'connect', where });
    if (forwarder) this.lease.take();
    try {
      await conn.open();
    } catch (err) {
      await conn.close();
      if (!beside)
        this.machine.dispatch(
          before.phase === 'failed'
            ? { type: 'fail', detail: before.detail ?? '', where: before.where }
            : { type: 'close', offline: before.offline, detail: before.detail, where: before.where },
        );
      throw err;
    }
    await this.detach(); // the one it replaces; `opened` follows
    this.conn = conn;
    this.tokenScope = opening.scope;
    this.forwarder = forwarder;
    this.connSub = conn.onDidChange(() => this.follow(conn));
    this.machine.dispatch({ type: 'opened', where, forwarding: forwarder !== undefined });
  }

  /** Re-opens the connection in use (forward targets changed): the old one goes first, so nothing is forwarded twice. */
  reopen(): Promise<void> {
    return this.serial(async () => {
      const where = this.machine.snapshot.where;
      const token = this.conn?.endpoint.token;
      const base = this.base;
      const address = base && parseRelayAddress(base);
      if (!token || !where || !address || 'problem' in address) return;
      try {
        await this.openRelay(where.kind === 'remote' ? where.address : address, token, where, true);
      } catch (err) {
        const label = where.kind === 'remote' ? where.address.label : `port ${where.port}`;
        this.machine.dispatch({ type: 'close', offline: true, detail: `Cannot connect to ${label}: ${(err as Error).message}`, where });
        throw err;
      }
    });
  }

  /** The connection in use changed: its subscription dropped or came back (events), or its rows changed (onDidChange). */
  private follow(conn: RelayConnection): void {
    if (conn !== this.conn) return;
    if (conn.refused !== undefined) return void this.refused(conn);
    const s = this.machine.snapshot;
    if (conn.state === 'connecting' && (s.phase !== 'reconnecting' || s.detail !== conn.detail))
      this.machine.dispatch({ type: 'lost', detail: conn.detail ?? `Reconnecting to ${conn.endpoint.label}` });
    else if (conn.state === 'running' && s.phase === 'reconnecting') this.machine.dispatch({ type: 'resumed' });
    else for (const l of [...this.rowListeners]) l();
  }

  /** Closes the connection in use (its rows go with it), then tells the machine `next`. */
  async detach(next?: ConnectionEvent): Promise<void> {
    const conn = this.conn;
    this.forwarder?.stop();
    this.forwarder = undefined;
    this.conn = undefined;
    this.tokenScope = undefined;
    this.connSub?.dispose();
    this.connSub = undefined;
    await conn?.close();
    if (next) this.machine.dispatch(next);
  }

  /** The relay refused the token on a reconnect (revoked, or its channel deleted): stop, say so, offer Connect to Relay…. */
  private async refused(conn: RelayConnection): Promise<void> {
    const label = this.remote?.label ?? conn.endpoint.label;
    await this.detach(refusal(label, conn.refused!, this.machine.snapshot.where));
  }

  private async leaseLost(forwarder: EditorForwarder): Promise<void> {
    if (this.forwarder !== forwarder) return;
    const detail = 'Another VS Code window forwards these deliveries now. Run "Connect to Relay…" here to take over.';
    await this.detach({ type: 'leaseLost', detail, where: this.machine.snapshot.where });
  }

  dispose(): void {
    this.forwarder?.stop();
    void this.conn?.close();
    this.rowListeners.clear();
  }
}

const EMPTY = new RelayLiveList(0);

/** The `refused` event: `label` refused the token with HTTP `status`. */
export function refusal(label: string, status: number, where: ConnectionWhere | undefined): ConnectionEvent {
  const detail = `${label} refused the token (HTTP ${status}): it was revoked, or its channel was deleted. Run "Connect to Relay…" with a valid token.`;
  return { type: 'refused', detail, label, status, where };
}
