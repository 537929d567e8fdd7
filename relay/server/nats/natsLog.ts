// The JetStream store's log (issue 15): deliveries in one stream (subject sh.delivery.<channel>),
// forward attempts in another (sh.attempt.<channel>). The stream sequence is the delivery's seq,
// the same on every relay instance; ingress's 200 waits for JetStream's publish acknowledgement (a
// quorum write on a replicated stream). Every instance builds the same index by consuming both
// streams (./streamFollower.ts), so subscribers and the API see deliveries ingested anywhere.
// NatsLog is the DeliveryLog (../store/deliveryLog.ts) that ./natsStore.ts's NatsStore indexes.
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType, type JetStreamClient, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import type { ForwardAttempt, ForwardState } from '../../../src/core/relay/protocol';
import { StoreUnavailableError } from '../base/errors';
import type { DeliveryMeta, NewDelivery, StoreHealth, StoreIntegrity } from '../base/storeTypes';
import type { AttemptToRecord, DeliveryLog, LogSink, ReadRecord } from '../store/deliveryLog';
import type { IndexRow } from '../deliveryIndex/compactIndex';
import { StreamFollower, type FollowedMessage } from './streamFollower';
import type { MessageReaders } from './hedged';
import { DurablePublisher } from './publisher';
import { found, isApiError, JetStreamApiCodes } from './apiErrors';
import { goneFromStream } from './absent';
import { CopyCheck } from './copyCheck';
import { retrying } from './clusterRetry';
import { StreamReadiness } from './streamReadiness';
import { DeliveryReader } from './deliveryReads';
import { META_HEADER, subjectRoot, type NatsStoreOptions } from './storeOptions';
import { NatsSnapshots, type Position } from './natsSnapshot';
import { snapshotBucket } from './snapshotObject';

/** How long after a sign of disturbance (a leader moved, a replica behind) messages are checked against the leader's copy. */
const DISTURBED_MS = 30_000;

/** A follower behind the stream that handed nothing over for this long is started again. */
const STALL_MS = 3000;

interface AttemptMessage {
  /** Unique per attempt recorded (also its Nats-Msg-Id); absent in older records. */
  id?: string;
  seq: number;
  attempt: ForwardAttempt;
  state?: ForwardState;
}

export class NatsLog implements DeliveryLog {
  readonly kind = 'jetstream';
  private sink!: LogSink;
  /** The highest delivery seq fed to the index. */
  private indexedUpTo = 0;
  private readonly js: JetStreamClient;
  private readonly deliveries: string;
  private readonly attemptsStream: string;
  private readonly indexedWaiters = new Map<number, (() => void)[]>();
  /** Ids of the attempts this instance published (applied at once; their stream copy is skipped). */
  private readonly ownAttempts = new Set<string>();
  /** The last leader seen of each stream (watchCluster). */
  private readonly leaders = new Map<string, string | undefined>();
  /** Until when the cluster counts as disturbed (disturb()). */
  private disturbedUntil = 0;
  /** Which message the leader acknowledged at this instance's seqs, against what the follower hands over. */
  private readonly copies = new CopyCheck<{ metaText: string; size: number }>();
  private readonly stops: (() => void)[] = [];
  private syncTimer: NodeJS.Timeout | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private watching = false;
  private readonly followers: StreamFollower[] = [];
  private readers!: MessageReaders;
  private readonly reader: DeliveryReader;
  private highestSeq = 0;
  private readonly publisher: DurablePublisher;
  private closed = false;
  /** Why the connection to NATS is down (readiness), while it is. */
  private disconnected: string | undefined;
  /** Whether the deliveries stream takes publishes now (readiness beyond the connection). */
  private readonly readiness: StreamReadiness;
  /** The index snapshot, written and read (./natsSnapshot.ts). */
  private readonly snapshots: NatsSnapshots;
  /** The lowest delivery seq the index holds as live (what prune and the stream's first seq dropped below). */
  private liveFrom = 0;
  private attemptsInFlight = 0; // this instance's attempts being recorded

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly options: NatsStoreOptions,
  ) {
    this.js = jetstream(nc);
    this.publisher = new DurablePublisher(this.js, options, () => this.closed);
    const prefix = options.prefix ?? 'SH';
    this.deliveries = `${prefix}_DELIVERIES`;
    this.attemptsStream = `${prefix}_ATTEMPTS`;
    this.readiness = new StreamReadiness(this.deliveries, options.publishBudgetMs ?? 7000, options.log);
    this.reader = new DeliveryReader({
      stream: this.deliveries,
      readers: () => this.readers,
      suspect: (seq) => this.copies.suspect.has(seq),
      absent: (seq) => this.absent(this.deliveries, seq),
      closed: () => this.closed,
      ...(options.log ? { log: options.log } : {}),
    });
    const streams = { nc, jsm, deliveries: this.deliveries, attempts: this.attemptsStream, bucket: snapshotBucket(prefix) };
    this.snapshots = new NatsSnapshots(
      {
        ...{ ...streams, sink: () => this.sink, replicas: () => this.replicas, position: () => this.position() },
        fields: () => ({ highestSeq: this.highestSeq, indexedUpTo: this.indexedUpTo, liveFrom: Math.max(this.liveFrom, 1) }),
        log: (line: string) => options.log?.(line),
      },
      options.snapshot,
    );
  }

  /** The JetStream handles of `nc`; open() creates (or updates) the streams and feeds the index from them. */
  static async connect(nc: NatsConnection, options: NatsStoreOptions = {}): Promise<NatsLog> {
    const log = new NatsLog(nc, await jetstreamManager(nc), options);
    // Reads with a short time-out, asked again beside the first while it goes unanswered
    // (./hedged.ts readMessage): a replica that hangs (a paused machine) is one of the queue
    // group that answers direct gets until its route is found dead.
    const quick = await jetstreamManager(nc, { timeout: 1000 });
    log.readers = { direct: (stream, seq) => quick.direct.getMessage(stream, { seq }), leader: (stream, seq) => quick.streams.getMessage(stream, { seq }) };
    return log;
  }

  async open(sink: LogSink): Promise<void> {
    this.sink = sink;
    const { options } = this;
    void this.watchConnection();
    await retrying(() => this.ensureStreams(), options.log);
    const restored = await this.snapshots.restore();
    if (restored) ({ highestSeq: this.highestSeq, indexedUpTo: this.indexedUpTo, liveFrom: this.liveFrom } = restored);
    await this.startConsumers(restored?.at);
    this.snapshots.start();
    this.syncTimer = setInterval(() => void this.syncFirstSeq().catch(() => undefined), options.syncIntervalMs ?? 5000);
    this.syncTimer.unref();
    this.watchTimer = setInterval(() => void this.watchFollowers(), 1000);
    this.watchTimer.unref();
  }

  /** Stream (and channel bucket) replicas: --nats-replicas, else 3 on a cluster of three or more servers, else 1. */
  get replicas(): number {
    const servers = (this.nc.info?.connect_urls?.length ?? 0) || 1;
    return this.options.replicas ?? (servers >= 3 ? 3 : 1);
  }

  private async ensureStreams(): Promise<void> {
    const replicas = this.replicas;
    const r = this.options.retention ?? {};
    const maxAge = r.maxAgeMs ? r.maxAgeMs * 1e6 : 0;
    const streams = [
      // No count limit on the stream: it would count rejected deliveries too, and a flood of
      // unsigned posts pushed accepted ones out. The store's retention counts each kind apart
      // (prune, dropRejected).
      { name: this.deliveries, subjects: [`${subjectRoot(this.deliveries)}.>`], max_msgs: -1 },
      { name: this.attemptsStream, subjects: [`${subjectRoot(this.attemptsStream)}.>`], max_msgs: r.maxCount ? r.maxCount * 10 : -1 },
    ];
    for (const s of streams) {
      const config = { ...s, storage: StorageType.File, num_replicas: replicas, max_age: maxAge, allow_direct: true };
      try {
        await this.jsm.streams.info(s.name);
        await this.jsm.streams.update(s.name, config);
      } catch (err) {
        if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw err;
        await this.jsm.streams.add(config);
        this.options.log?.(`store: created JetStream stream ${s.name} (replicas ${replicas})`);
      }
    }
  }

  /** Follows the connection's status for health (/readyz); the stream followers restart themselves (./streamFollower.ts). */
  private async watchConnection(): Promise<void> {
    for await (const st of this.nc.status()) {
      if (st.type === 'disconnect' && !this.disconnected) {
        this.disconnected = `lost the connection to NATS (${st.server}); reconnecting`;
        this.options.log?.(`store: ${this.disconnected}`);
      }
      if (st.type !== 'reconnect') continue;
      if (this.disconnected) this.options.log?.(`store: connected to NATS again (${st.server})`);
      this.disconnected = undefined;
      this.disturb('the connection to NATS moved to another server');
    }
  }

  /** P, when the index holds exactly the messages of both streams up to it (no attempt of this instance's in flight). */
  private position(): Position | undefined {
    const [d, a] = [this.deliveries, this.attemptsStream].map((s) => this.followers.find((f) => f.stream === s));
    if (!d || !a || this.ownAttempts.size > 0 || this.attemptsInFlight > 0) return undefined;
    return { deliveries: d.last, attempts: a.last };
  }

  private async startConsumers(from?: Position): Promise<void> {
    // Deliveries first (up to the last seq at open), then attempts, so no attempt precedes its delivery.
    const delivery = (m: FollowedMessage) =>
      this.onDelivery(m.seq, m.headers?.get(META_HEADER) ?? '', Number(m.headers?.get('Nats-Msg-Size') ?? 0), m.headers?.get('Nats-Msg-Id'));
    await this.consumeFromStart(this.deliveries, true, delivery, from?.deliveries);
    await this.consumeFromStart(
      this.attemptsStream,
      false,
      (m) => {
        const a = m.json<AttemptMessage>();
        if (a.id === undefined || !this.ownAttempts.delete(a.id)) this.onAttempt(a);
      },
      from?.attempts,
    );
  }

  /**
   * Follows a stream from its start, or after seq `from` (a StreamFollower), and resolves once it
   * has handed over what the stream held at that moment.
   */
  private async consumeFromStart(stream: string, headersOnly: boolean, onMessage: (m: FollowedMessage) => void, from = 0): Promise<void> {
    const info = await this.jsm.streams.info(stream);
    if (stream === this.deliveries) this.highestSeq = Math.max(this.highestSeq, info.state.last_seq);
    const loaded = info.state.messages === 0 ? 0 : info.state.last_seq;
    let caughtUp!: () => void;
    const initial = new Promise<void>((r) => (caughtUp = r));
    if (loaded <= from) caughtUp();
    const handles = {
      js: this.js,
      jsm: this.jsm,
      readers: this.readers,
      absent: (s: string, seq: number) => this.absent(s, seq),
      ...(this.options.log ? { log: this.options.log } : {}),
    };
    const f = new StreamFollower(
      stream,
      headersOnly,
      handles,
      (m) => {
        onMessage(m);
        this.snapshots.handedOver();
        if (m.seq >= loaded) caughtUp();
      },
      loaded,
    );
    f.last = from;
    this.stops.push(() => f.stop());
    this.followers.push(f);
    void f.run();
    await initial;
  }

  /**
   * True when the stream no longer holds `seq` by its leader's word, asked so that a leader that
   * has not applied the message yet is not taken for one that removed it (./absent.ts); a seq
   * skipped for that reason is logged, as it never reaches a subscriber.
   */
  private async absent(stream: string, seq: number): Promise<boolean> {
    const gone = await goneFromStream(
      { message: (s) => this.jsm.streams.getMessage(stream, { seq: s }), state: async () => (await this.jsm.streams.info(stream)).state },
      seq,
    );
    if (gone) this.options.log?.(`store: seq ${seq} of ${stream} is ${gone} (the stream's leader says so); passed over`);
    return gone !== undefined;
  }

  /**
   * Starts over a follower that is behind what the stream is known to hold and has handed nothing
   * over for STALL_MS (its consumer stopped handing out: its leader moved mid-pull, or it is being
   * re-created while the stream elects). What the stream holds is known from this instance's own
   * acknowledged publishes and from the stream's info, read every tick.
   */
  private async watchFollowers(): Promise<void> {
    if (this.watching || this.closed) return;
    this.watching = true;
    try {
      // Both at once: while a stream's leader hangs, its info waits out the API's time-out.
      await Promise.all(
        this.followers.map(async (f) => {
          let error = '';
          const info = await this.jsm.streams.info(f.stream).catch((err: Error) => void (error = err.message));
          if (f.stream === this.deliveries) this.readiness.probed(info ?? undefined, error);
          if (info) f.known = Math.max(f.known, info.state.last_seq);
          if (info) this.watchCluster(f.stream, info.cluster);
          if (f.known <= f.last || Date.now() - f.progressAt < STALL_MS) return;
          f.startOver(`stalled at seq ${f.last}, seq ${f.known} exists`);
        }),
      );
    } finally {
      this.watching = false;
    }
  }

  /**
   * The stream's leader moved, or one of its replicas is offline or behind: the cluster is being
   * disturbed (a server restarted or hangs), and copies of the stream were seen to differ then.
   */
  private watchCluster(stream: string, cluster: StreamInfo['cluster']): void {
    if (!cluster) return;
    const before = this.leaders.get(stream);
    this.leaders.set(stream, cluster.leader);
    if (before !== undefined && before !== cluster.leader) return this.disturb(`the leader of ${stream} moved`);
    const behind = (cluster.replicas ?? []).find((r) => r.offline || !r.current);
    if (behind) this.disturb(`a replica of ${stream} (${behind.name}) is ${behind.offline ? 'offline' : 'behind'}`);
  }

  /**
   * For DISTURBED_MS from now, the followers check what they hand over against the stream leader's
   * copy (the shared forwarding checks every message it posts: ./sharedForwarding.ts).
   */
  private disturb(why: string): void {
    if (!this.disturbed()) this.options.log?.(`store: ${why}; messages are checked against the stream leader's copy for ${DISTURBED_MS / 1000} s`);
    this.disturbedUntil = Date.now() + DISTURBED_MS;
    for (const f of this.followers) f.checkNext();
  }

  /** True while the cluster was lately disturbed (disturb()): a consumer's copy may not be the leader's. */
  disturbed(): boolean {
    return Date.now() < this.disturbedUntil;
  }

  /** Delivery `seq` as the stream's leader holds it: its message id, body and meta. */
  async leaderMessage(seq: number): Promise<{ id: string; data: Uint8Array; metaText: string }> {
    const m = found(await this.readers.leader(this.deliveries, seq), this.deliveries, seq);
    return { id: m.header.get('Nats-Msg-Id'), data: m.data, metaText: m.header.get(META_HEADER) };
  }

  private onDelivery(seq: number, metaText: string, size: number, id: string | undefined): void {
    this.highestSeq = Math.max(this.highestSeq, seq);
    const own = this.copies.handedOver(seq, id);
    if (own) {
      ({ metaText, size } = own); // the leader acknowledged this instance's message at seq: index that
      this.copyDiffers(seq);
    }
    let meta: Omit<DeliveryMeta, 'seq'>;
    try {
      meta = JSON.parse(metaText) as Omit<DeliveryMeta, 'seq'>;
    } catch {
      this.options.log?.(`store: message ${seq} of ${this.deliveries} has no readable ${META_HEADER}; skipped`);
      return;
    }
    this.sink.delivery({ ...meta, seq }, size);
    this.indexedUpTo = Math.max(this.indexedUpTo, seq);
    for (const [s, waiters] of this.indexedWaiters) {
      if (s > seq) continue;
      this.indexedWaiters.delete(s);
      for (const w of waiters) w();
    }
  }

  private onAttempt(a: AttemptMessage): void {
    this.sink.attempt(a.seq, a.attempt, a.state);
  }

  /** For the shared forwarding: the JetStream handles, the deliveries stream and a channel's subject. */
  get client(): JetStreamClient {
    return this.js;
  }

  get manager(): JetStreamManager {
    return this.jsm;
  }

  get deliveryStream(): string {
    return this.deliveries;
  }

  deliverySubject(channel: string): string {
    return `${subjectRoot(this.deliveries)}.${channel}`;
  }

  /** Rejected deliveries' subject, purged apart (a channel name never starts with "_"). */
  private rejectedSubject(channel: string): string {
    return `${subjectRoot(this.deliveries)}._rejected.${channel}`;
  }

  get lastSeq(): number {
    return this.highestSeq;
  }

  /** JetStream assigns the seq on acknowledgement, so `seq` is known only once `durable` resolves. */
  append(meta: NewDelivery, body: Buffer): { seq: number; durable: Promise<DeliveryMeta> } {
    return { seq: 0, durable: this.publishDelivery(meta, body) };
  }

  private async publishDelivery(meta: NewDelivery, body: Buffer): Promise<DeliveryMeta> {
    if (this.closed) throw new StoreUnavailableError('the store is closed');
    const full = { ...meta, receivedAt: new Date().toISOString() };
    const h = natsHeaders();
    const metaText = JSON.stringify(full);
    h.set(META_HEADER, metaText);
    const msgID = randomUUID();
    const subject = meta.verification === 'rejected' ? this.rejectedSubject(meta.channel) : this.deliverySubject(meta.channel);
    const sentAt = this.readiness.now();
    const seq = await this.publisher.publish(subject, body, h, 'the delivery', msgID).catch((err: Error) => {
      if (!(err instanceof StoreUnavailableError)) throw err;
      this.readiness.publishFailed(err.message, sentAt);
      throw this.readiness.explained(err); // names a lost quorum as such
    });
    this.readiness.acknowledged();
    this.snapshots.published(seq);
    if (!this.copies.acknowledged(seq, msgID, { metaText, size: body.length })) this.copyDiffers(seq);
    this.knownUpTo(this.deliveries, seq);
    await this.indexed(seq);
    return { ...full, seq };
  }

  /**
   * The deliveries' follower handed over another message at `seq` than the one the stream's leader
   * acknowledged there (./copyCheck.ts): it reads a copy that differs. It starts over (a new
   * consumer, reads from the leader meanwhile), and `seq` is read from the leader from now on.
   */
  private copyDiffers(seq: number): void {
    this.options.log?.(
      `store: the copy of ${this.deliveries} this instance followed holds another message at seq ${seq} than the stream's leader acknowledged`,
    );
    this.disturb(`a copy of ${this.deliveries} differs from its leader's`);
    for (const f of this.followers) if (f.stream === this.deliveries) f.startOver(`a copy differs at seq ${seq}`);
  }

  private knownUpTo(stream: string, seq: number): void {
    for (const f of this.followers) if (f.stream === stream) f.known = Math.max(f.known, seq);
  }

  /**
   * Resolves once the index holds `seq`, or after 2 s (the delivery is durable either way).
   */
  private indexed(seq: number): Promise<void> {
    if (this.indexedUpTo >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      // Not restarting the followers here: with a burst in flight every post's wait ran out in
      // turn, and each restart dropped the ordered consumer being created; the watchdog
      // (watchFollowers) restarts a stalled follower at most every STALL_MS.
      const t = setTimeout(resolve, 2000);
      const list = this.indexedWaiters.get(seq) ?? [];
      list.push(() => (clearTimeout(t), resolve()));
      this.indexedWaiters.set(seq, list);
    });
  }

  async recordAttempt({ seq, attempt, state, channel = '_' }: AttemptToRecord): Promise<void> {
    const id = randomUUID();
    const msg: AttemptMessage = { id, seq, attempt, ...(state ? { state } : {}) };
    // Known as this instance's before it is published: the stream's follower may hand it over
    // before the publish's acknowledgement arrives, and must not apply it a second time.
    this.ownAttempts.add(id);
    this.attemptsInFlight++;
    try {
      this.knownUpTo(
        this.attemptsStream,
        await this.publisher.publish(`${subjectRoot(this.attemptsStream)}.${channel}`, Buffer.from(JSON.stringify(msg)), undefined, 'the attempt', id),
      );
    } catch (err) {
      this.ownAttempts.delete(id); // may have been stored after all: then its follower applies it
      throw err;
    } finally {
      this.attemptsInFlight--;
    }
    this.onAttempt(msg);
    this.snapshots.handedOver();
  }

  /** A delivery's stream message, checked against the index (./deliveryReads.ts). */
  read(seq: number, indexed: IndexRow | undefined): Promise<ReadRecord | undefined> {
    return this.reader.read(seq, indexed);
  }

  /**
   * Purges the deliveries below `minSeq` from the stream (the store chose them: ../store/logStore.ts
   * prune). Only when some are there: nats-server (2.9.10) takes a purge up to seq 1 for a purge of
   * the whole stream, and a prune that drops nothing (`keep` above what is held, before the first
   * syncFirstSeq) asked for exactly that.
   */
  async prune(minSeq: number): Promise<void> {
    const first = (await this.jsm.streams.info(this.deliveries)).state.first_seq;
    if (minSeq > first) await this.jsm.streams.purge(this.deliveries, { seq: minSeq });
    this.sink.dropBelow(minSeq);
    await this.syncFirstSeq(); // the lowest seq held (an index snapshot names it)
  }

  /** Purges the rejected deliveries with seq <= `upTo` by their subject (--keep-rejected, chosen by the store). */
  async dropRejected(upTo: number): Promise<void> {
    await this.jsm.streams.purge(this.deliveries, { filter: this.rejectedSubject('>'), seq: upTo + 1 });
    this.sink.hideRejectedUpTo(upTo);
    await this.syncFirstSeq();
  }

  /** Not ready while a delivery posted now would be answered 503: NATS unreachable, or the stream without a quorum (./streamReadiness.ts). */
  health(): StoreHealth {
    if (this.nc.isClosed()) return { notReady: 'the connection to NATS is closed', fatal: true };
    const notReady = this.disconnected ?? this.readiness.notReady();
    return notReady ? { notReady } : {};
  }

  /** JetStream checks its own storage: nothing for the relay to report. */
  integrity(): StoreIntegrity {
    return { corruptRecords: 0, corruptBytes: 0, truncatedBytes: 0 };
  }

  private async syncFirstSeq(): Promise<void> {
    const info = await this.jsm.streams.info(this.deliveries);
    this.liveFrom = Math.max(this.liveFrom, info.state.first_seq);
    this.sink.dropBelow(info.state.first_seq);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.snapshots.close();
    this.closed = true;
    clearInterval(this.syncTimer);
    clearInterval(this.watchTimer);
    for (const stop of this.stops) stop();
    await this.nc.drain().catch(() => undefined);
  }
}
