// Waits out a (re)connect of the relay in use before a step that reads what the connection knows,
// with progress naming the relay, bounded: after `timeoutMs` (or when the connection ends) the
// step goes on with what is known, and never fails because of the wait itself.
import { withProgress } from '../progress';
import { log } from '../log';
import { isConnecting, whenConnected, type ConnectionWatch } from './whenConnected';

/** How long a command waits for a reconnect before it goes on without the connection. */
export const RECONNECT_WAIT_MS = 20_000;

/** True when the relay in use is connected once this returns (at once when nothing was connecting). */
export async function relayReady(relay: ConnectionWatch & { remoteLabel?: string; port?: number }, timeoutMs = RECONNECT_WAIT_MS): Promise<boolean> {
  if (!isConnecting(relay)) return relay.state === 'running';
  const label = relay.remoteLabel ?? (relay.port !== undefined ? `the relay on port ${relay.port}` : 'the relay');
  const result = await withProgress(`Waiting for the connection to ${label}…`, () => whenConnected(relay, timeoutMs), { cancellable: true });
  if (result !== 'running')
    log().warn(`the connection to ${label} is not back (${result === 'timeout' ? `after ${timeoutMs / 1000} s` : relay.state}); going on without it`);
  return result === 'running';
}
