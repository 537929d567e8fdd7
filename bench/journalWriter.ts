// A bench's journal written offline with the relay's own writer (issue 40): the store's record
// encoders (relay/server/store/storeRecords.ts) through Journal (relay/server/journal/journal.ts)
// with the store's summarize, so segments, their index files and the seq mark are byte for byte
// what a relay receiving these deliveries would have written, only in big group commits (one
// fdatasync per BATCH records instead of one per delivery). Deliveries are the scale benches'
// (./relayProbe.ts deliveryHeaders), one in ten on channel "ci"; every one but the newest
// `pending` has one successful forward attempt to `target`.
import { Journal } from '../relay/server/journal/journal';
import { nodeFs } from '../relay/server/journal/journalFs';
import { SeqMark } from '../relay/server/journal/seqMark';
import { deliveryRecord, stateFields, summarize, T_ATTEMPT_ENTRY, T_DELIVERY, isAttempt } from '../relay/server/store/storeRecords';
import { decodeAttempt, decodeDelivery, encodeAttempt } from '../relay/server/deliveryIndex/indexEntries';
import { deliveryHeaders } from './relayProbe';

/** Records per group commit. */
const BATCH = 8192;

export interface JournalGrowth {
  /** Deliveries in the journal when done (its newest seq at least this). */
  upTo: number;
  bodyBytes: number;
  /** The newest this many deliveries stay pending (no attempt). */
  pending: number;
  /** The forward target every delivery names. */
  target: string;
  /** Told every 100,000 deliveries. */
  progress?: (done: number) => void;
}

/**
 * Appends deliveries to the journal in `dir` (created when absent) until it holds `upTo`: the
 * seqs after its newest record (or after the seq mark a killed relay left above it). Whatever was
 * left pending gets its successful attempt first (the app came back). Resolves with the seconds
 * it took and the deliveries it wrote.
 */
export async function growJournal(dir: string, g: JournalGrowth): Promise<{ seconds: number; written: number }> {
  const t0 = performance.now();
  let last = 0;
  /** Deliveries whose forward is not ok yet. */
  const unsettled = new Set<number>();
  const journal = await Journal.open(dir, {
    segmentBytes: 64 * 1024 * 1024,
    summarize,
    onEntry: (type, entry) => {
      if (type === T_DELIVERY) {
        const seq = decodeDelivery(entry, true).seq;
        last = Math.max(last, seq);
        unsettled.add(seq);
      } else if (isAttempt(type)) {
        const a = decodeAttempt(entry);
        if (a.state?.status === 'ok') unsettled.delete(a.seq);
      }
    },
  });
  const mark = await SeqMark.open(dir, nodeFs);
  // A relay killed with -9 reserved seqs above its last record: new ones follow the mark, as the relay's would.
  last = Math.max(last, mark.found);
  const from = last;
  const body = Buffer.alloc(g.bodyBytes, '{"action":"opened","padding":"'.padEnd(64, 'x'));
  const state = stateFields({ target: g.target, status: 'ok', lastStatus: 200, attempts: 1 });
  /** A successful forward of `seq` at `atMs` (2 ms after its receipt, for the new ones), as the relay journals it. */
  const attemptEntry = (seq: number, atMs: number) => encodeAttempt(seq, { target: g.target, atMs, status: 200, ok: true, durationMs: 2 }, state);
  try {
    const writes: Promise<unknown>[] = [];
    const flush = async () => {
      await Promise.all(writes);
      writes.length = 0;
    };
    // What was left pending (by the last growth, or posted to a relay since) is forwarded now.
    const now = Date.now();
    for (const seq of unsettled) {
      const e = attemptEntry(seq, now);
      writes.push(journal.append(T_ATTEMPT_ENTRY, [e], { entry: e }));
    }
    await flush();
    const lastForwarded = g.upTo - g.pending;
    for (let seq = from + 1; seq <= g.upTo; seq++) {
      const receivedMs = Date.now();
      const meta = { channel: seq % 10 ? 'default' : 'ci', verification: 'verified' as const, headers: deliveryHeaders(seq, g.bodyBytes), targets: [g.target] };
      const { head, entry } = deliveryRecord(seq, receivedMs, meta);
      writes.push(journal.append(T_DELIVERY, [head, body], { entry }));
      if (seq <= lastForwarded) {
        const e = attemptEntry(seq, receivedMs + 2);
        writes.push(journal.append(T_ATTEMPT_ENTRY, [e], { entry: e }));
      }
      if (writes.length >= BATCH) {
        await mark.cover(seq);
        await flush();
      }
      if (seq % 100_000 === 0) g.progress?.(seq);
    }
    await flush();
  } finally {
    await journal.close();
    await mark.close(Math.max(from, g.upTo));
  }
  return { seconds: (performance.now() - t0) / 1000, written: Math.max(0, g.upTo - from) };
}
