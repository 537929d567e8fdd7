// What the forward set-ups of a relay ask of the editor's forwarder (issue 38 item 7): deliveries a
// set-up's filter leaves out are recorded at the relay as skipped, several apps do not hold back
// each other, and each app gets the set-up's https trust (forwardTrust.ts).
import { filters, routingTargets } from '../../core/relay/forwardRouting';
import type { AppAttempt } from '../../../relay/client/appAttempt';
import type { ForwardSession } from '../../core/tree';
import { settings } from '../config';
import { log } from '../log';
import type { RelayClientModule } from './connection';
import type { ForwardingOptions } from './forwarding';
import { forwardAttempt } from './forwardTrust';

export function setupOptions(
  client: RelayClientModule,
  sessions: readonly ForwardSession[],
): Pick<ForwardingOptions, 'skipsByFilter' | 'holdPerTarget' | 'attempt'> {
  const filtered = new Set(sessions.filter((f) => filters(f)).map((f) => f.channel));
  return {
    skipsByFilter: (channel) => filtered.has(channel),
    holdPerTarget: sessions.some((f) => routingTargets(f).length > 1),
    attempt: setupAttempt(client, sessions),
  };
}

/** The attempt to the apps of `sessions` with their https trust (the CA file setting, Skip verification). */
export function setupAttempt(client: Pick<RelayClientModule, 'trustedAttempt'>, sessions: readonly ForwardSession[]): AppAttempt {
  return forwardAttempt(
    client,
    sessions,
    () => settings().relayForwardCa,
    10_000,
    (line) => log().warn(`forward: ${line}`),
  );
}
