// How a relay instance follows one stream into its index: a consumer of its own (no acks, the
// stream's replicas, removed by JetStream when the instance is gone for 10 minutes) read in short
// pulls, handing every message over once and in order.
//
// Not the client's ordered consumer: that is an ephemeral consumer with one replica, and
// nats-server 2.9 may place it on a server that is down (killed, not yet removed from the stream's
// peers). Its creation then never completes and the client retries it without end, so the index
// (and every subscriber of the instance) stood still for as long as the server stayed down: 30 s
// and more in issue 21's runs. A consumer with the stream's replicas has a leader as long as the
// stream has a quorum.
import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, type Consumer, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { MessageReaders, StreamMessage } from './hedged';
import { found, isApiError, JetStreamApiCodes } from './apiErrors';
import { shortPull, type ShortPull } from './shortPull';

/** What a follower hands over: a consumer's message, or one read by seq while the consumer is stuck. */
export type FollowedMessage = Pick<JsMsg, 'seq' | 'json'> & { headers?: { get(name: string): string } };

/** Messages read by seq at once while filling a gap. */
const FILL_BATCH = 64;

/**
 * The first messages of each new consumer checked against the stream leader's copy. A consumer
 * reads its own server's copy of the stream, and a consumer made during a fail-over was seen
 * handing over, for its first seqs, messages the leader holds other messages at (a copy with
 * entries that were never committed; issue 21): indexed, they sent a subscriber another delivery
 * for those seqs and never the acknowledged one.
 */
export const CHECK_FIRST = 256;

export interface FollowerHandles {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** True when the stream holds no message `seq` (so a gap before it is real, not a lost pull). */
  absent: (stream: string, seq: number) => Promise<boolean>;
  /** Reads a message by seq (filling in while the consumer is being made again). */
  readers?: MessageReaders;
  log?: (line: string) => void;
}

export class StreamFollower {
  /** The last seq handed over. */
  last = 0;
  /** The highest seq known to exist (own publishes, the stream's info). */
  known: number;
  /** When a pull last returned a message (or the follower last started over). */
  progressAt = Date.now();
  private consumer: Consumer | undefined;
  private name: string | undefined;
  private stopped = false;
  private failures = 0;
  private filling = false;
  /** Messages of the current consumer still to check against the leader's copy. */
  private toCheck = 0;

  constructor(
    readonly stream: string,
    private readonly headersOnly: boolean,
    private readonly h: FollowerHandles,
    private readonly onMessage: (m: FollowedMessage) => void,
    loaded: number,
  ) {
    this.known = loaded;
  }

  /** Pulls until stopped. */
  async run(): Promise<void> {
    while (!this.stopped) {
      let pull: ShortPull | undefined;
      try {
        const consumer = this.consumer ?? (await this.create());
        pull = await shortPull(consumer, { max_messages: 512, expires: 1000 });
        for await (const m of pull.messages) {
          if (this.stopped || this.consumer !== consumer) break;
          this.progressAt = Date.now();
          if (m.seq <= this.last) continue;
          if (this.last > 0 && m.seq > this.last + 1 && !(await this.h.absent(this.stream, this.last + 1))) {
            this.startOver('a pull was lost'); // messages went to a pull request that is gone
            break;
          }
          if (m.seq <= this.last) continue; // handed over meanwhile by fill()
          const checked = this.toCheck > 0 ? await this.checked(m) : m;
          if (m.seq <= this.last) continue;
          if (!checked) {
            this.startOver(`seq ${m.seq} could not be checked with the stream's leader`);
            break;
          }
          this.last = m.seq;
          this.onMessage(checked);
          if (checked !== m) {
            this.startOver(`the consumer's copy differs from the leader's at seq ${m.seq}`);
            break;
          }
        }
        if (this.failures > 0) this.h.log?.(`store: following ${this.stream} again from seq ${this.last + 1}`);
        this.failures = 0;
      } catch (err) {
        if (this.failures++ === 0) this.h.log?.(`store: following ${this.stream} failed (${(err as Error).message}); trying again`);
        this.checkNext(); // a failed pull: its consumer's leader may have moved to another copy
        if (isApiError(err, JetStreamApiCodes.ConsumerNotFound) || (await pull?.deleted())) this.consumer = undefined;
        if (!this.consumer) void this.fill(); // no consumer to be had now: read what is known by seq
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /**
   * Drops the consumer and makes a new one from the seq after the last handed over; meanwhile
   * reads what is known to exist by seq (fill). Making a consumer needs the cluster's meta leader,
   * and after a hung server resumed nats-server 2.9 answered 503 to every consumer create for
   * 15 s and more while the stream itself served reads and writes: the index, and every
   * subscriber of this instance, stood still that long (issue 21).
   */
  startOver(why: string): void {
    if (this.stopped) return;
    this.h.log?.(`store: following ${this.stream} again from seq ${this.last + 1} (${why})`);
    this.progressAt = Date.now();
    this.drop();
    void this.fill();
  }

  /**
   * Hands over the messages after the last one up to `known` read by seq (from the stream's
   * leader, batch by batch), until caught up or a read fails; a seq the stream's leader says it
   * does not hold is skipped. The consumer's loop skips what this handed over, and the other way.
   */
  async fill(): Promise<void> {
    const readers = this.h.readers;
    if (!readers || this.filling) return;
    this.filling = true;
    try {
      while (!this.stopped && this.known > this.last) {
        const from = this.last + 1;
        const seqs = Array.from({ length: Math.min(FILL_BATCH, this.known - this.last) }, (_, i) => from + i);
        // From the stream's leader, not any replica: what is indexed must be what the stream holds.
        const read = await Promise.allSettled(seqs.map(async (seq) => found(await readers.leader(this.stream, seq), this.stream, seq)));
        for (const [i, r] of read.entries()) {
          const seq = seqs[i]!;
          if (seq <= this.last) continue; // the consumer got there first
          if (seq > this.last + 1) return; // the consumer moved the other way: let it go on
          if (r.status === 'rejected') {
            if (!(await this.h.absent(this.stream, seq))) return; // not read now: the next stall tries again
            if (seq === this.last + 1) this.last = seq; // a gap in the stream
            continue;
          }
          this.last = seq;
          this.progressAt = Date.now();
          this.onMessage(followed(seq, r.value));
        }
      }
    } finally {
      this.filling = false;
    }
  }

  /**
   * Checks the next `n` messages against the leader's copy, whatever consumer hands them over: the
   * cluster was disturbed (a server restarted, the stream's leader moved), and a consumer whose
   * leader moved reads another server's copy from then on.
   */
  checkNext(n = CHECK_FIRST): void {
    this.toCheck = Math.max(this.toCheck, n);
  }

  stop(): void {
    this.stopped = true;
    this.drop();
  }

  private drop(): void {
    const name = this.name;
    this.consumer = undefined;
    this.name = undefined;
    if (name) void this.h.jsm.consumers.delete(this.stream, name).catch(() => undefined);
  }

  /**
   * `m` when the stream's leader holds the same message at its seq (by message id), else the
   * leader's message; undefined when the leader did not answer. Asked for a new consumer's first
   * messages, and for every message while the cluster is disturbed (checkNext).
   */
  private async checked(m: FollowedMessage): Promise<FollowedMessage | undefined> {
    this.toCheck--;
    if (!this.h.readers) return m;
    // The manager's own time-out (5 s), not the quick readers' 1 s: on a loaded machine a check
    // that timed out dropped the consumer, and the next one's checks timed out again.
    const leader = await this.h.jsm.streams.getMessage(this.stream, { seq: m.seq }).catch(() => null);
    if (!leader) return undefined; // no answer, or none held there: not checked
    if (leader.header.get('Nats-Msg-Id') === (m.headers?.get('Nats-Msg-Id') ?? '')) return m;
    this.h.log?.(`store: a consumer of ${this.stream} handed over another message at seq ${m.seq} than the stream's leader holds; the leader's is indexed`);
    return followed(m.seq, leader);
  }

  private async create(): Promise<Consumer> {
    const name = `idx-${randomUUID().slice(0, 12)}`;
    await this.h.jsm.consumers.add(this.stream, {
      durable_name: name,
      ack_policy: AckPolicy.None,
      ...(this.last > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.last + 1 } : { deliver_policy: DeliverPolicy.All }),
      headers_only: this.headersOnly,
      mem_storage: true,
      inactive_threshold: 10 * 60 * 1e9,
      description: 'service-hooks relay index',
    });
    this.name = name;
    this.toCheck = CHECK_FIRST;
    this.consumer = await this.h.js.consumers.get(this.stream, name);
    return this.consumer;
  }
}

/** A message read by seq, as the consumer would have handed it over (its size as a headers-only consumer gives it). */
function followed(seq: number, m: StreamMessage): FollowedMessage {
  return {
    seq,
    headers: { get: (name) => (name === 'Nats-Msg-Size' ? String(m.data.length) : m.header.get(name)) },
    json: <T>() => JSON.parse(Buffer.from(m.data).toString('utf8')) as T,
  };
}
