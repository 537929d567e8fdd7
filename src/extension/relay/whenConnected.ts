// A bounded wait for the relay in use while its connection is being (re)made: a command that reads
// what the connection knows (Add Webhook's channel URLs, its secret check against a channel) asks
// here first, so a reconnect at that moment is waited out instead of offering no channel or
// checking against nothing. No vscode import: the wait is tested with a plain event source.
import type { RelayState } from '../../core/tree';

/** What the wait reads of the relay manager. */
export interface ConnectionWatch {
  readonly state: RelayState;
  /** A connection change (restore, re-open, connect) is queued or running. */
  readonly changing: boolean;
  onDidChange(listener: () => void): { dispose(): void };
  /** Resolves once the connection changes queued now (a restore, a re-open) have run. */
  settled(): Promise<void>;
}

/** Whether the relay in use is being connected now (a first connect, a reconnect, or a re-open in the queue). */
export function isConnecting(relay: Pick<ConnectionWatch, 'state' | 'changing'>): boolean {
  return relay.state === 'connecting' || relay.state === 'starting' || relay.changing;
}

/**
 * Resolves 'running' as soon as the relay is connected and no connection change is queued,
 * 'down' when it ends in another state (offline, failed, stopped), or 'timeout' after `timeoutMs`.
 */
export function whenConnected(relay: ConnectionWatch, timeoutMs: number): Promise<'running' | 'down' | 'timeout'> {
  return new Promise((resolve) => {
    let done = false;
    let settled = false;
    const finish = (result: 'running' | 'down' | 'timeout') => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sub.dispose();
      resolve(result);
    };
    const check = () => {
      if (!settled) return;
      if (relay.state === 'running') finish('running');
      else if (relay.state !== 'connecting' && relay.state !== 'starting') finish('down');
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    const sub = relay.onDidChange(check);
    void relay.settled().then(() => {
      settled = true;
      check();
    });
  });
}
