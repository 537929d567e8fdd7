// When the file journal writes its index snapshot, and how one is checked and restored at open
// (issue 40; the file: ../journal/snapshotFile.ts). A snapshot is the store's whole state at a
// journal position P — the index (LogSink.save) and JournalLog's own fields — taken at a moment
// when every record before P has reached the index and none after it has: no append of the
// store in flight. At open it is used only when it matches the journal: P inside a present
// segment, the last record before P the one the snapshot names (place, length, crc), and the
// same segments up to P as when it was written (a prune since removed some: not used). Anything
// else is logged once and the index is rebuilt from the journal, never trusted; the next
// snapshot replaces it.
//
// When: once `every` records were journaled since the last one (default: the larger of 50,000
// and a tenth of the deliveries held, so that writing snapshots costs little next to the
// journal and a restart replays at most that many records), and at a clean close when at least
// 1,000 (or `every`, if smaller) were, or there is none. The state is copied on the event loop
// (~50 ms at a million deliveries) and written in the background.
import { join } from 'node:path';
import { HEADER_BYTES, type JournalFs, type RecordLocation } from '../journal/journal';
import { ImageError, ImageWriter, type ImageReader } from '../base/imageParts';
import { segmentName } from '../journal/journalLoad';
import { readIndexHead, type IndexHead } from '../journal/segmentIndex';
import { fingerprintOf, openSnapshot, writeSnapshot, type JournalPosition, type SnapshotHead } from '../journal/snapshotFile';
import type { LogSink } from './deliveryLog';

export interface SnapshotOptions {
  /** Records journaled between snapshots (default: max(50,000, deliveries held / 10)). */
  every?: number;
  /** Told of each snapshot written: its bytes, the time its state was copied on the event loop, the time its write took. */
  onWritten?: (info: { bytes: number; copyMs: number; writeMs: number }) => void;
  /** Test only: awaited in the middle of writing a snapshot's temporary file (a test kills the process then). */
  hold?: () => Promise<void>;
}

/** What the journal holds that a snapshot carries for it (besides the sink's part). */
export interface LogFields {
  lastSeq: number;
  minSeq: number;
  rejectedUpTo: number;
  /** Segment numbers present at P. */
  segments: number[];
  segmentMaxSeq: [number, number][];
  segmentMaxRejected: [number, number][];
  segmentSeqs: [number, { minSeq: number; maxSeq: number }][];
  /** Damaged regions per segment, as reported at open. */
  corrupt: [number, [offset: number, bytes: number][]][];
  /** What each sealed segment's index file said (checked at open: a segment indexed again since, or its index gone, is not trusted). */
  indexes: [number, IndexHead][];
}

export interface SnapshotHost {
  readonly fs: JournalFs;
  readonly dir: string;
  /** Present segment numbers, and the current one and its size. */
  journal(): { segments: readonly number[]; segment: number; size: number };
  /** Damaged regions the open found in segment `segment` before `offset` (undefined: that segment was not read yet). */
  damageBefore(at: JournalPosition): number | undefined;
  fields(): LogFields;
  sink(): LogSink;
  problem(line: string): void;
}

/** Restored: where to feed from, and the journal's fields at P. */
export interface Restored {
  at: JournalPosition;
  fields: LogFields;
}

const CLOSE_MIN = 1000;

/** A snapshot read, not yet in place. */
interface Read {
  head: SnapshotHead;
  fields: LogFields;
  commit: () => void;
}

export class SnapshotKeeper {
  /** The store's appends not yet through (written and fed, or failed). */
  private busy = 0;
  private idle: (() => void)[] = [];
  /** Records journaled since the last snapshot's P. */
  private since = 0;
  /** The last record the index holds (the fingerprint). */
  private last: RecordLocation | undefined;
  private writing: Promise<void> | undefined;
  private reading: Promise<Read | string | undefined> | undefined;
  /** A snapshot came due while one was being written: taken once that one is done. */
  private again = false;
  private live = false;
  private failed = 0;
  /** Whether a snapshot was found valid or written in this run. */
  private have = false;
  /** Deliveries held, for the default interval. */
  rows = 0;

  constructor(
    private readonly host: SnapshotHost,
    private readonly options: SnapshotOptions | false = {},
  ) {}

  /** A record journaled (at open: fed, after P), at `loc`. */
  noted(loc: RecordLocation): void {
    this.since++;
    this.note(loc);
  }

  private note(loc: RecordLocation): void {
    const l = this.last;
    if (!l || loc.segment > l.segment || (loc.segment === l.segment && loc.offset > l.offset)) this.last = loc;
  }

  /** Runs one of the store's appends: a snapshot is taken only while none is in flight. */
  async track<T>(op: Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await op;
    } finally {
      if (--this.busy === 0) this.settled();
    }
  }

  private settled(): void {
    for (const resolve of this.idle.splice(0)) resolve();
    if (this.live && this.since >= this.every()) this.takeSafely();
  }

  /** take(), which runs inside an append's settling: a failure to copy the state stops snapshots, never the append. */
  private takeSafely(): void {
    try {
      this.take();
    } catch (err) {
      this.live = false;
      this.host.problem(`cannot take an index snapshot (${(err as Error).message}); none is written until the next start`);
    }
  }

  private every(): number {
    if (this.options === false) return Infinity;
    return this.options.every ?? Math.max(50_000, Math.floor(this.rows / 10));
  }

  /** The index is built: from now on snapshots are taken when due. */
  start(): void {
    this.live = this.options !== false;
    if (this.busy === 0) this.settled();
  }

  /** Segments were removed (a prune): the snapshot names them, so it is no longer used; the next is due at once. */
  removed(): void {
    this.since = Infinity;
  }

  /** No more snapshots in this run (a write the index did not get: it no longer matches the journal). */
  stop(): void {
    this.live = false;
  }

  /** Takes a snapshot now (no append in flight): copies the state, writes it in the background. */
  private take(): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    if (!this.last) return;
    const { segment, size } = this.host.journal();
    const t0 = performance.now();
    const w = new ImageWriter();
    w.json(this.host.fields());
    if (!this.host.sink().save(w)) return;
    const at = { segment, offset: size };
    const last = this.last;
    this.since = 0;
    this.writing = this.write(at, last, w, performance.now() - t0).finally(() => {
      this.writing = undefined;
      if (!this.again || this.busy > 0) return;
      this.again = false;
      if (this.live) this.takeSafely();
    });
  }

  private async write(at: JournalPosition, last: RecordLocation, w: ImageWriter, copyMs: number): Promise<void> {
    const { fs, dir } = this.host;
    const t0 = performance.now();
    try {
      const fingerprint = await fingerprintOf(fs, dir, segmentName(last.segment), last);
      if (!fingerprint) throw new Error(`the record at segment ${last.segment} offset ${last.offset} cannot be read back`);
      const head: SnapshotHead = { at, fingerprint };
      const bytes = await writeSnapshot(fs, dir, head, w.parts, { hold: this.options ? this.options.hold : undefined });
      this.have = true;
      if (this.options) this.options.onWritten?.({ bytes, copyMs, writeMs: performance.now() - t0 });
    } catch (err) {
      if (this.failed++ === 0)
        this.host.problem(`cannot write the index snapshot in ${dir} (${(err as Error).message}); the next start reads the index files instead`);
    }
  }

  /** At a clean close: waits for the store's appends and a write in progress, then writes one more when worth it. */
  async close(): Promise<void> {
    while (this.busy > 0) await new Promise<void>((r) => this.idle.push(r));
    while (this.writing) await this.writing;
    const live = this.live;
    this.live = false;
    if (live && this.since > 0 && (!this.have || this.since >= Math.min(CLOSE_MIN, this.every()))) {
      this.takeSafely();
      await this.writing;
    }
  }

  /** A kill, for tests: a write in progress is awaited, none started. */
  async release(): Promise<void> {
    while (this.writing) await this.writing;
    this.live = false;
  }

  /**
   * Starts reading the snapshot, while the journal's tail is read: its parts are decoded into a
   * state not yet in place (restore() puts it there once it matches the journal).
   */
  readAhead(): void {
    this.reading = this.read();
    this.reading.catch(() => undefined);
  }

  private async read(): Promise<Read | string | undefined> {
    const opened = await openSnapshot(this.host.fs, this.host.dir);
    if (opened === undefined || typeof opened === 'string') return opened;
    try {
      const fields = await readFields(opened.reader);
      const commit = await this.host.sink().restore(opened.reader);
      return { head: opened.head, fields, commit };
    } catch (err) {
      return (err as Error).message;
    } finally {
      await opened.close();
    }
  }

  /**
   * Puts the snapshot's state in place when it matches the journal (its sink part; the journal's
   * fields are returned); undefined otherwise (said once why, when there was one).
   */
  async restore(): Promise<Restored | undefined> {
    const read = await (this.reading ?? this.read());
    this.reading = undefined;
    if (read === undefined) return undefined;
    if (typeof read === 'string') return this.refused(read);
    const why = await this.mismatch(read.head, read.fields).catch((err: Error) => err.message);
    if (why) return this.refused(why);
    read.commit();
    this.note(read.head.fingerprint);
    this.have = true;
    return { at: read.head.at, fields: read.fields };
  }

  private refused(why: string): undefined {
    this.host.problem(`the index snapshot does not match the journal (${why}); rebuilding the index from the journal`);
    return undefined;
  }

  /** Why the snapshot at `head` cannot be used on this journal (undefined: it can). */
  private async mismatch(head: SnapshotHead, fields: LogFields): Promise<string | undefined> {
    const { at, fingerprint: fp } = head;
    const { segments } = this.host.journal();
    const before = segments.filter((s) => s <= at.segment);
    if (before.join() !== fields.segments.join())
      return `it names segments ${fields.segments.join(', ') || 'none'}, the journal has ${before.join(', ') || 'none'} up to ${at.segment}`;
    if (!segments.includes(at.segment)) return `segment ${at.segment} is gone`;
    const size = (await this.host.fs.stat(join(this.host.dir, segmentName(at.segment)))).size;
    if (size < at.offset) return `segment ${at.segment} is shorter than its position ${at.offset}`;
    const end = fp.offset + HEADER_BYTES + fp.length;
    if (fp.segment === at.segment ? end !== at.offset : fp.segment > at.segment || at.offset !== 0) return 'its last record does not end at its position';
    const found = await fingerprintOf(this.host.fs, this.host.dir, segmentName(fp.segment), fp);
    if (!found || found.crc !== fp.crc || found.type !== fp.type)
      return `the record at segment ${fp.segment} offset ${fp.offset} is not the one it was taken after`;
    const damage = this.host.damageBefore(at);
    const known = fields.corrupt.find(([seg]) => seg === at.segment)?.[1].length ?? 0;
    if (damage !== undefined && damage !== known) return `segment ${at.segment} holds ${damage} damaged records before its position, it knew of ${known}`;
    return this.indexesChanged(at, fields);
  }

  /** Why the sealed segments before P do not look as when the snapshot was taken: an index file gone, rewritten, or a segment another size. */
  private async indexesChanged(at: JournalPosition, fields: LogFields): Promise<string | undefined> {
    const heads = new Map(fields.indexes);
    const sealed = fields.segments.filter((s) => s < at.segment);
    const found = await Promise.all(
      sealed.map(async (seg) => {
        const [head, stat] = await Promise.all([readIndexHead(this.host.fs, this.host.dir, seg), this.host.fs.stat(join(this.host.dir, segmentName(seg)))]);
        return { seg, head, size: stat.size };
      }),
    );
    for (const { seg, head, size } of found) {
      const was = heads.get(seg);
      if (!was || !head || head.crc !== was.crc || head.count !== was.count || head.bytes !== was.bytes || size !== was.bytes)
        return `segment ${seg} or its index file is not as it was (${!head ? 'no valid index file' : size !== was?.bytes ? `${size} bytes` : 'another index'})`;
    }
    return undefined;
  }
}

async function readFields(r: ImageReader): Promise<LogFields> {
  const f = await r.json<LogFields>();
  const pairs = (x: unknown) => Array.isArray(x) && x.every((p) => Array.isArray(p) && p.length === 2 && Number.isSafeInteger(p[0]));
  const ok =
    typeof f === 'object' &&
    f !== null &&
    [f.lastSeq, f.minSeq, f.rejectedUpTo].every((n) => Number.isSafeInteger(n) && n >= 0) &&
    Array.isArray(f.segments) &&
    f.segments.every((s) => Number.isSafeInteger(s)) &&
    [f.segmentMaxSeq, f.segmentMaxRejected, f.segmentSeqs, f.corrupt, f.indexes].every(pairs);
  if (!ok) throw new ImageError('the journal fields do not fit');
  return f;
}
