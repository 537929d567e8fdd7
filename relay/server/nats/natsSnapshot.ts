// When the JetStream store writes its index snapshot, and how a joining instance checks and uses
// one (issue 40; the object: ./snapshotObject.ts). A snapshot is the index (LogSink.save) and
// NatsLog's own fields at a position P = (deliveries seq, attempts seq), taken when the index holds
// every message of both streams up to P and none after (none of this instance's attempts in
// flight, no attempt held for its delivery). At open it is used only when it matches the streams:
// the deliveries stream is the one it was taken of (its identity: the cluster, name and creation
// time; the attempts stream's creation time too), both streams still hold the messages at P with
// the message ids the snapshot names, and the deliveries stream's first seq has not passed the
// lowest seq the snapshot holds as live. Then the index is restored and both streams are followed
// from P + 1; otherwise one line says why, and the index is read from the streams' start. Never
// trusted unchecked, never a reason not to start.
//
// When: the instance whose publish was acknowledged at a delivery seq that is a multiple of
// `every` (default 100,000) writes one at the next moment the index is at such a position (one
// writer per `every` deliveries on a cluster of instances; the object's name is fixed, the last
// write wins), and each instance at a clean close, unless the snapshot there is newer or already
// at its position.
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ObjectStore } from '@nats-io/obj';
import { ImageWriter } from '../base/imageParts';
import type { LogSink } from '../store/deliveryLog';
import { jetStreamIdentity } from '../store/storeIdentity';
import { openSnapshotObject, snapshotHead, snapshotStore, writeSnapshotObject, type MessageMark, type SnapshotHead } from './snapshotObject';

export interface NatsSnapshotOptions {
  /** Deliveries between snapshots (default 100,000): written by the instance whose publish got a seq that is a multiple of it. */
  every?: number;
  /** Told of each snapshot written: its bytes and position. */
  onWritten?: (info: { bytes: number; at: Position }) => void;
  /** Told when the snapshot was restored at open (for tests). */
  onRestored?: (at: Position) => void;
}

export const SNAPSHOT_EVERY = 100_000;

/** P: the last seq of each stream the index holds. */
export interface Position {
  deliveries: number;
  attempts: number;
}

/** NatsLog's own fields a snapshot keeps. */
export interface NatsFields {
  highestSeq: number;
  indexedUpTo: number;
  liveFrom: number;
}

export interface NatsSnapshotHost {
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly deliveries: string;
  readonly attempts: string;
  readonly bucket: string;
  replicas(): number;
  sink(): LogSink;
  /** P, when the index holds exactly the messages of both streams up to it; undefined now. */
  position(): Position | undefined;
  fields(): NatsFields;
  log(line: string): void;
}

/** A snapshot restored: where to follow the streams from, and the log's fields at P. */
export interface Restored extends NatsFields {
  at: Position;
}

export class NatsSnapshots {
  private due = false;
  private writing: Promise<void> | undefined;
  private again = false;
  private live = false;
  private failed = 0;
  /** The position of the last snapshot written or restored in this run. */
  private done: Position | undefined;
  private identity: { identity: string; attemptsCreated: string } | undefined;
  private os: ObjectStore | undefined;

  constructor(
    private readonly host: NatsSnapshotHost,
    private readonly options: NatsSnapshotOptions | false = {},
  ) {}

  private get every(): number {
    return (this.options && this.options.every) || SNAPSHOT_EVERY;
  }

  /** This instance's publish of a delivery was acknowledged at `seq`. */
  published(seq: number): void {
    if (this.live && seq % this.every === 0) this.due = true;
  }

  /** A message was handed over to the index (or an attempt of this instance's applied): a due snapshot is taken when it can be. */
  handedOver(): void {
    if (this.due) this.take();
  }

  /** The index is built: from now on snapshots are written when due. */
  start(): void {
    this.live = this.options !== false;
  }

  /** Copies the state when the index is at a position (no attempt held), and writes it in the background. */
  private take(closing = false): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    const at = this.host.position();
    if (!at || at.deliveries === 0 || !this.identity) return;
    if (this.done && this.done.deliveries === at.deliveries && this.done.attempts === at.attempts) {
      this.due = false;
      return;
    }
    const w = new ImageWriter();
    if (!this.host.sink().save(w)) return; // stays due
    this.due = false;
    const head = { ...this.identity, ...this.host.fields() };
    this.writing = this.write(at, head, w, closing).finally(() => {
      this.writing = undefined;
      if (this.again && this.live) this.take();
      this.again = false;
    });
  }

  private async write(at: Position, fields: NatsFields & NonNullable<NatsSnapshots['identity']>, w: ImageWriter, closing: boolean): Promise<void> {
    const { host } = this;
    try {
      const [deliveries, attempts] = await Promise.all([this.mark(host.deliveries, at.deliveries), this.mark(host.attempts, at.attempts)]);
      this.os ??= await snapshotStore(host.nc, host.bucket, host.replicas());
      if (closing) {
        const there = await snapshotHead(this.os).catch(() => undefined);
        if (typeof there === 'object' && there.identity === fields.identity && there.deliveries.seq > at.deliveries) return;
      }
      const head: SnapshotHead = { format: 1, ...fields, deliveries, attempts };
      const bytes = await writeSnapshotObject(this.os, head, w.parts);
      this.done = at;
      if (this.options) this.options.onWritten?.({ bytes, at });
    } catch (err) {
      if (this.failed++ === 0)
        host.log(`store: cannot write the index snapshot to ${host.bucket} (${(err as Error).message}); a joining instance reads the streams instead`);
    }
  }

  /** The message id at `seq` of `stream` (seq 0: none). */
  private async mark(stream: string, seq: number): Promise<MessageMark> {
    if (seq === 0) return { seq, id: '' };
    const m = await this.host.jsm.streams.getMessage(stream, { seq });
    if (!m) throw new Error(`message ${seq} of ${stream} cannot be read back`);
    return { seq, id: m.header.get('Nats-Msg-Id') };
  }

  /** At a clean close: waits for a write in progress, then writes one more when the index moved since. */
  async close(): Promise<void> {
    while (this.writing) await this.writing;
    if (!this.live) return;
    this.take(true);
    this.live = false;
    while (this.writing) await this.writing;
  }

  /**
   * Restores the snapshot into the sink when it matches the streams (before any message is fed);
   * undefined otherwise, said in one line (but for a store that never had one).
   */
  async restore(): Promise<Restored | undefined> {
    return this.restoreNow().catch((err: Error) => this.refused(err.message));
  }

  private async restoreNow(): Promise<Restored | undefined> {
    const { host } = this;
    if (this.options === false) return undefined;
    const [d, a] = await Promise.all([host.jsm.streams.info(host.deliveries), host.jsm.streams.info(host.attempts)]);
    this.identity = { identity: jetStreamIdentity(d), attemptsCreated: a.created };
    let os: ObjectStore;
    try {
      os = this.os = await snapshotStore(host.nc, host.bucket, host.replicas());
    } catch (err) {
      return this.refused(`its bucket ${host.bucket} cannot be opened: ${(err as Error).message}`);
    }
    const opened = await openSnapshotObject(os).catch((err: Error) => err.message);
    if (opened === undefined) return undefined;
    if (typeof opened === 'string') return this.refused(opened);
    try {
      const { head } = opened;
      const why = await this.mismatch(head, d.state);
      if (why) return this.refused(why);
      const commit = await host.sink().restore(opened.reader);
      commit();
      this.done = { deliveries: head.deliveries.seq, attempts: head.attempts.seq };
      if (this.options) this.options.onRestored?.(this.done);
      return { at: this.done, highestSeq: head.highestSeq, indexedUpTo: head.indexedUpTo, liveFrom: head.liveFrom };
    } catch (err) {
      return this.refused((err as Error).message);
    } finally {
      await opened.close();
    }
  }

  private refused(why: string): undefined {
    this.host.log(`store: the index snapshot in ${this.host.bucket} is not used (${why}); reading the index from the streams`);
    return undefined;
  }

  /** Why the snapshot `head` does not match the streams (undefined: it does). */
  private async mismatch(head: SnapshotHead, d: StreamState): Promise<string | undefined> {
    const { host } = this;
    if (head.identity !== this.identity!.identity) return `taken of ${head.identity}, the stream is ${this.identity!.identity}`;
    if (head.attemptsCreated !== this.identity!.attemptsCreated) return `${host.attempts} was created again since`;
    const first = d.messages > 0 ? d.first_seq : d.last_seq + 1;
    if (first > Math.max(head.liveFrom, 1)) return `${host.deliveries} starts at seq ${first}, the snapshot holds deliveries from seq ${head.liveFrom} on`;
    for (const [stream, mark] of [
      [host.deliveries, head.deliveries],
      [host.attempts, head.attempts],
    ] as const) {
      if (mark.seq === 0) continue;
      const m = await host.jsm.streams.getMessage(stream, { seq: mark.seq }).catch(() => null);
      if (!m || m.header.get('Nats-Msg-Id') !== mark.id) return `${stream} holds ${m ? 'another message' : 'no message'} at seq ${mark.seq}`;
    }
    return undefined;
  }
}

interface StreamState {
  messages: number;
  first_seq: number;
  last_seq: number;
}
