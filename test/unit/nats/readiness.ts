// The chaos suite starts each scenario on a settled cluster: both relays answer /readyz 200 again
// after the fault (issue 42). What /readyz says during a fault is pinned by quorum.test.ts.
import { request } from 'undici';

/** Asks `relay`'s /readyz until it answers 200 (bounded: `withinMs`); throws with what it last said. */
export async function readyAgain(relay: string, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let said: string;
  for (;;) {
    try {
      const res = await request(`${relay}/readyz`, { signal: AbortSignal.timeout(5000) });
      said = `${res.statusCode} ${await res.body.text()}`;
      if (res.statusCode === 200) return;
    } catch (err) {
      said = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${relay} not ready ${withinMs / 1000} s after the fault was over: ${said}`);
    await new Promise((r) => setTimeout(r, 250)); // poll interval of a bounded wait
  }
}
