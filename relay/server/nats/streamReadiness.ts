// Whether a delivery posted now would be stored (issue 42): the JetStream store's readiness, as
// GET /readyz and relay_store_ready report it. Being connected to a NATS server is not enough:
// with two of three servers gone the connection stays up while every publish waits out its budget
// and is answered 503, so readiness follows the deliveries stream itself. It is good while this
// instance's publishes are acknowledged, or while the stream's info (asked every second) names a
// leader with a quorum of current replicas; it turns not ready when a publish failed for want of
// a quorum (until one succeeds or the stream looks whole again), or when nothing has shown the
// stream able to accept for longer than a post is held (the publish budget, 7 s).
import type { StreamInfo } from '@nats-io/jetstream';
import { StoreUnavailableError } from '../base/errors';

export class StreamReadiness {
  /** When the stream was last seen able to accept (an acknowledged publish or a whole stream's info). */
  private goodAt: number;
  /** Why the last probe found the stream unable to accept, while it does. */
  private probe: string | undefined;
  /** Why the last publish failed, until a publish or a probe shows the stream whole again. */
  private publish: string | undefined;
  /** What was last logged: why not ready, or undefined (ready). */
  private said: string | undefined;

  constructor(
    private readonly stream: string,
    /** How long the stream may show nothing good before it counts as not ready (the publish budget). */
    private readonly graceMs: number,
    private readonly log: (line: string) => void = () => undefined,
    readonly now: () => number = Date.now,
  ) {
    this.goodAt = now();
  }

  /** A publish to the stream was acknowledged: it takes deliveries. */
  acknowledged(): void {
    this.goodAt = this.now();
    if (this.publish === undefined && this.said === undefined) return;
    this.publish = undefined;
    this.report();
  }

  /**
   * A publish to the stream, sent at `sentAt`, failed past its budget (no leader, no quorum). One
   * acknowledged since it was sent says more (the election it waited out is over): it is ignored.
   */
  publishFailed(why: string, sentAt: number): void {
    if (this.goodAt > sentAt) return;
    this.publish = why;
    this.report();
  }

  /** The stream's info as a probe read it, or why the probe got none. */
  probed(info: StreamInfo | undefined, error?: string): void {
    const missing = info ? wanting(info) : `no answer from the stream (${error ?? 'unknown'})`;
    this.probe = missing;
    if (!missing) {
      this.goodAt = this.now();
      this.publish = undefined;
    }
    this.report();
  }

  /** Logs each change of readiness once, in words an operator can act on. */
  private report(): void {
    const why = this.notReady();
    if ((why === undefined) === (this.said === undefined)) return;
    this.said = why;
    if (why) this.log(`store: NOT READY: ${why}; posts are answered 503 and /readyz answers 503 until the stream has a quorum again`);
    else this.log(`store: ${this.stream} takes deliveries again; ready (/readyz)`);
  }

  /** `err` (a publish past its budget) with what the last probe found: a lost quorum is named as such. */
  explained(err: StoreUnavailableError): StoreUnavailableError {
    if (!this.probe) return err;
    return new StoreUnavailableError(`JetStream lost its quorum for ${this.stream} (${this.probe}); ${err.message}`);
  }

  /** Why a delivery posted now would not be stored; undefined while it would be. */
  notReady(): string | undefined {
    const quiet = this.now() - this.goodAt;
    if (this.publish) return `JetStream cannot store deliveries in ${this.stream}: ${this.publish}`;
    if (this.probe && quiet > this.graceMs)
      return `JetStream cannot store deliveries in ${this.stream} for ${Math.round(quiet / 1000)} s (lost quorum? ${this.probe})`;
    return undefined;
  }
}

/** What the stream lacks to accept a publish: a leader, or a quorum of current replicas. */
function wanting(info: StreamInfo): string | undefined {
  const cluster = info.cluster;
  if (!cluster) return undefined; // a single server: its answer is the leader's
  if (!cluster.leader) return 'the stream has no leader';
  const replicas = info.config.num_replicas || 1;
  const current = (cluster.replicas ?? []).filter((r) => r.current && !r.offline).length;
  const needed = Math.floor(replicas / 2); // besides the leader
  if (current < needed) return `the stream's leader ${cluster.leader} has ${current + 1} of the ${needed + 1} replicas a quorum needs`;
  return undefined;
}
