// What the chaos suite asks of /readyz (issue 42): it samples each relay's /readyz through a fault
// scenario, and checks the samples against what the burst's posts to that relay got. Ready means
// "a delivery posted now would be stored"; a relay may say not ready only around posts to it that
// failed, must be ready before the fault, and ready again once the fault is over.
import { request } from 'undici';

export interface ReadySample {
  /** When the request was sent and when its answer came. */
  sentAt: number;
  at: number;
  relay: string;
  ready: boolean;
  said: string;
}

/** How far from a failed post a not-ready answer may be: a post is held 7 s, the stream probe waits 5 s. */
const NEAR_FAILURE_MS = 13_000;

/** Asks each relay's /readyz every `everyMs` until stopped (a sampling interval, not a wait for an event). */
export function sampleReadiness(relays: () => string[], everyMs = 250): { samples: ReadySample[]; stop(): Promise<void> } {
  const samples: ReadySample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await Promise.all(
        relays().map(async (relay) => {
          const sentAt = Date.now();
          try {
            const res = await request(`${relay}/readyz`, { signal: AbortSignal.timeout(5000) });
            const said = await res.body.text();
            samples.push({ sentAt, at: Date.now(), relay, ready: res.statusCode === 200, said });
          } catch (err) {
            samples.push({ sentAt, at: Date.now(), relay, ready: false, said: `no answer: ${(err as Error).message}` });
          }
        }),
      );
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/**
 * What is wrong with the samples, given the burst's log ([when, status or failure, relay]) and
 * when the fault began: a relay not ready before the fault, or not ready where no post to it
 * failed within NEAR_FAILURE_MS. Empty: the samples say what the posts got.
 */
export function readinessFaults(samples: ReadySample[], log: [number, string, string?][], faultAt: number): string[] {
  const faults: string[] = [];
  const failures = log.filter(([, what]) => what !== '200');
  for (const s of samples) {
    if (s.ready) continue;
    const when = `${((s.sentAt - faultAt) / 1000).toFixed(1)} s from the fault`;
    if (s.at < faultAt) {
      faults.push(`${s.relay} not ready before the fault (${when}): ${s.said}`);
      continue;
    }
    const near = failures.some(([t, , relay]) => relay === s.relay && Math.abs(t - s.sentAt) <= NEAR_FAILURE_MS);
    if (!near) faults.push(`${s.relay} not ready ${when} with no post to it failing within ${NEAR_FAILURE_MS / 1000} s: ${s.said}`);
  }
  return faults;
}

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
