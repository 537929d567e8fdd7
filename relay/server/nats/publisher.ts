// How the JetStream store publishes durably: until JetStream acknowledges, within a budget, sent
// again while unanswered, and with a bound on the publishes that wait for a stream leader.
import { randomUUID } from 'node:crypto';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { StoreUnavailableError } from '../base/errors';
import { hedged } from './hedged';
import { describe, noResponders, transient } from './apiErrors';

/** A publish unanswered this long is sent again beside the first (same message id). */
const PUBLISH_AGAIN_MS = 1000;

export interface PublishOptions {
  /** How long a publish waits for JetStream's acknowledgement (default 5 s). */
  ackTimeoutMs?: number;
  /** How long ingress tries to get a delivery acknowledged before answering 503 (default 7 s). */
  publishBudgetMs?: number;
  /** Publishes of one kind that may wait for a stream leader at once (default 512). */
  maxWaitingPublishes?: number;
}

export class DurablePublisher {
  /** Publishes waiting for a stream leader, by what they publish: deliveries and attempts each have the budget. */
  private readonly waitingPublishes = new Map<string, number>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly options: PublishOptions,
    private readonly closed: () => boolean,
  ) {}

  /**
   * Publishes until JetStream acknowledges, for at most `publishBudgetMs` (default 7 s). While a
   * stream elects a new leader (its leader's server died or hangs) nats-server has no subscriber
   * for the stream's subjects, so a publish fails at once with "503" (no responders), or times out;
   * failing then turned one server's death into hundreds of 503s in a second. Each delivery carries
   * a message id (Nats-Msg-Id), so a retry of a publish that was stored after all is recognised
   * within the stream's duplicate window and answers the first one's seq. Past the budget, or with
   * more publishes waiting than `maxWaitingPublishes`, the caller gets StoreUnavailableError (503
   * with Retry-After) instead of a hang.
   */
  async publish(subject: string, body: Buffer, h: MsgHdrs | undefined, what = 'the delivery', msgID: string = randomUUID()): Promise<number> {
    const deadline = Date.now() + (this.options.publishBudgetMs ?? 7000);
    let waiting = false;
    try {
      for (let tries = 0; ; tries++) {
        const publish = () => {
          const timeout = Math.max(500, Math.min(this.options.ackTimeoutMs ?? 5000, deadline - Date.now()));
          return this.js.publish(subject, body, { ...(h ? { headers: h } : {}), msgID, timeout });
        };
        try {
          // Sent again beside itself while unanswered: a stream leader that hangs (a paused
          // machine) keeps its interest in the subjects until it is found dead, so a publish went
          // to it and waited out the whole ack time-out, though a new leader had been elected
          // meanwhile; the copy sent after the election is stored and acknowledged by the new one.
          // The message id makes the copies one message (the stream's duplicate window).
          const calls = Math.max(1, Math.floor((this.options.ackTimeoutMs ?? 5000) / PUBLISH_AGAIN_MS));
          return (await hedged(publish, { afterMs: PUBLISH_AGAIN_MS, calls, final: noResponders })).seq;
        } catch (err) {
          const why = describe(err);
          if (this.closed() || Date.now() + 250 >= deadline || !transient(err))
            throw new StoreUnavailableError(`JetStream did not acknowledge ${what}: ${why}`);
          if (!waiting) {
            const others = this.waitingPublishes.get(what) ?? 0;
            if (others >= (this.options.maxWaitingPublishes ?? 512))
              throw new StoreUnavailableError(`JetStream did not acknowledge ${what} (${why}) and ${others} others wait for it`);
            this.waitingPublishes.set(what, others + 1);
            waiting = true;
          }
          await new Promise((r) => setTimeout(r, Math.min(250 * (tries + 1), 1000)));
        }
      }
    } finally {
      if (waiting) this.waitingPublishes.set(what, this.waitingPublishes.get(what)! - 1);
    }
  }
}
