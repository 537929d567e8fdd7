// Replay to subscribers across relay instances (issue 42): a subscriber (`service-hooks forward`,
// the editor) is connected to one instance, and a replay request may reach any of them through the
// load balancer. The instance asked sends the delivery to its own subscribers and asks every other
// instance to do the same, over a core NATS subject (<prefix>.replay.subscribers: a request, not a
// stream message, since a replay nobody is connected for has nothing to keep). Each instance
// answers with how many of its subscribers it sent the delivery to; the sum is the API's answer.
import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';

/** How long the instance asked waits for the others' answers at most, and after the last one. */
const MAX_WAIT_MS = 2000;
const AFTER_LAST_MS = 300;

export interface SharedReplays {
  /** Sends `seq` to its channel's subscribers on every instance; resolves to how many they are. */
  replay(seq: number): Promise<number>;
  stop(): void;
}

interface ReplayRequest {
  seq: number;
  /** The asking instance (it sends to its own subscribers itself). */
  from: string;
}

/** Serves the other instances' replay requests with `local`, and returns the replay that asks them. */
export function shareReplays(nc: NatsConnection, prefix: string, local: (seq: number) => Promise<number>, log: (line: string) => void): SharedReplays {
  const subject = `${prefix.toLowerCase()}.replay.subscribers`;
  const me = randomUUID();
  const sub = nc.subscribe(subject, {
    callback: (err, m) => {
      if (err) return;
      let r: ReplayRequest;
      try {
        r = m.json<ReplayRequest>();
      } catch {
        return log(`replay: ignoring a malformed request on ${subject}`);
      }
      // The asker answers itself at once (0: it counts its own apart), so its wait ends
      // AFTER_LAST_MS after the last answer rather than at MAX_WAIT_MS when it is alone.
      if (r.from === me) {
        m.respond(JSON.stringify({ n: 0 }));
        return;
      }
      if (!Number.isSafeInteger(r.seq)) return;
      local(r.seq).then(
        (n) => m.respond(JSON.stringify({ n })),
        (e: Error) => log(`replay: delivery ${r.seq} asked by another relay instance was not sent to the subscribers here: ${e.message}`),
      );
    },
  });
  return {
    async replay(seq) {
      const request: ReplayRequest = { seq, from: me };
      const [here, elsewhere] = await Promise.all([local(seq), askOthers(nc, subject, request, log)]);
      return here + elsewhere;
    },
    stop: () => sub.unsubscribe(),
  };
}

/** The other instances' counts, summed; those that do not answer within MAX_WAIT_MS count 0 (and are logged). */
async function askOthers(nc: NatsConnection, subject: string, request: ReplayRequest, log: (line: string) => void): Promise<number> {
  let n = 0;
  try {
    const replies = await nc.requestMany(subject, JSON.stringify(request), {
      strategy: 'stall',
      maxWait: MAX_WAIT_MS,
      stall: AFTER_LAST_MS,
    });
    for await (const m of replies) n += Math.max(0, Number(m.json<{ n?: unknown }>().n) || 0);
  } catch (err) {
    log(`replay: could not ask the other relay instances to send delivery ${request.seq} to their subscribers: ${(err as Error).message}`);
  }
  return n;
}
