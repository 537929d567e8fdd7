// The chaos suite starts each scenario on a settled cluster: both relays answer /readyz 200 again
// after the fault (issue 42). What /readyz says during a fault is pinned by quorum.test.ts.
import { request } from 'undici';
import { pollUntil } from '../../support/poll';

/** Asks `relay`'s /readyz until it answers 200 (bounded: `withinMs`); throws with what it last said. */
export async function readyAgain(relay: string, withinMs = 30_000): Promise<void> {
  let said = '';
  const ask = async (): Promise<true | undefined> => {
    try {
      const res = await request(`${relay}/readyz`, { signal: AbortSignal.timeout(5000) });
      said = `${res.statusCode} ${await res.body.text()}`;
      return res.statusCode === 200 || undefined;
    } catch (err) {
      said = (err as Error).message;
      return undefined;
    }
  };
  await pollUntil(`${relay} ready after the fault was over`, ask, () => said, withinMs);
}
