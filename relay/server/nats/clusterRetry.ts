// Asking a JetStream cluster that is still forming (or lost a peer) again, within a bound.
import { clusterNotReady, describe } from './apiErrors';

/**
 * A cluster that has just started (or lost a peer) answers "no suitable peers for placement" or
 * times out until its peers have registered: try again for up to a minute, saying so once.
 */
export async function retrying<T>(fn: () => Promise<T>, log?: (line: string) => void): Promise<T> {
  const deadline = Date.now() + 60_000;
  let said = false;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!clusterNotReady(err) || Date.now() > deadline) throw err;
      if (!said) log?.(`store: JetStream is not ready (${describe(err)}); waiting for the cluster`);
      said = true;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
