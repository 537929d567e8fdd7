// Acknowledged deliveries lost to damage the journal cannot undo: a sealed segment cut short, or a
// segment file deleted. (A torn tail can only be the newest segment's last record, never
// acknowledged; records skipped as corrupt in the middle of a segment are counted apart.)
//
// Delivery seqs ascend through the segments. So the seqs lost at a damaged boundary lie between
// the last delivery kept before it and the first kept after it; those below the prune floor were
// meant to go. Boundaries looked at: after a sealed segment that was cut short or had to be read
// in full, at a segment number missing between two present ones, and before the first present
// segment (whatever an earlier prune did not remove). Losses are kept in LOSS_FILE until pruned.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SeqRange {
  from: number;
  to: number;
  /** What happened, for the log line. */
  cause: string;
}

export interface SegmentSeqs {
  minSeq: number;
  maxSeq: number;
}

export interface LossInput {
  /** Present segment numbers, ascending. */
  segments: readonly number[];
  /** The delivery seqs each present segment holds (absent: none). */
  deliveries: ReadonlyMap<number, SegmentSeqs>;
  /** Sealed segments cut short at open. */
  cut: ReadonlySet<number>;
  /** Seqs below this were pruned on purpose. */
  minSeq: number;
  /**
   * Rejected deliveries up to this seq were dropped on purpose (their own retention), and a segment
   * holding nothing else is deleted: a missing segment's seqs up to it are not called lost.
   */
  rejectedUpTo?: number;
}

export function lostRanges(input: LossInput): SeqRange[] {
  const { segments, deliveries } = input;
  const out: SeqRange[] = [];
  const maxBefore = (i: number) => {
    for (let k = i; k >= 0; k--) {
      const d = deliveries.get(segments[k]!);
      if (d) return d.maxSeq;
    }
    return 0;
  };
  const minFrom = (i: number) => {
    for (let k = i; k < segments.length; k++) {
      const d = deliveries.get(segments[k]!);
      if (d) return d.minSeq;
    }
    return undefined;
  };
  const add = (lowKept: number, highKept: number | undefined, cause: string, missing = true) => {
    if (highKept === undefined) return;
    const from = Math.max(lowKept + 1, input.minSeq, missing ? (input.rejectedUpTo ?? 0) + 1 : 0);
    const to = highKept - 1;
    if (from <= to) out.push({ from, to, cause });
  };
  if (segments.length > 0 && segments[0]! > 1) add(0, minFrom(0), `segment${segments[0]! > 2 ? 's' : ''} before ${segments[0]} missing`);
  for (let i = 1; i < segments.length; i++) {
    const prev = segments[i - 1]!;
    const seg = segments[i]!;
    if (seg - prev > 1) add(maxBefore(i - 1), minFrom(i), seg - prev > 2 ? `segments ${prev + 1}-${seg - 1} missing` : `segment ${prev + 1} missing`);
    else if (input.cut.has(prev)) add(maxBefore(i - 1), minFrom(i), `sealed segment ${prev} cut short`, false);
  }
  return out;
}

export function describeRanges(ranges: readonly SeqRange[]): string {
  return ranges.map((r) => `${r.from === r.to ? `seq ${r.from}` : `seqs ${r.from}-${r.to}`} (${r.cause})`).join(', ');
}

export function rangeCount(ranges: readonly SeqRange[]): number {
  return ranges.reduce((n, r) => n + r.to - r.from + 1, 0);
}

/** Where losses found at an open are kept, so later starts (after the damage was cut off) still report them. */
export const LOSS_FILE = 'journal-lost.json';

/** The losses recorded by earlier starts plus `found`, without those pruned since (below `minSeq`); written back when changed. */
export function rememberLoss(dir: string, found: readonly SeqRange[], minSeq: number): SeqRange[] {
  const path = join(dir, LOSS_FILE);
  let before: SeqRange[] = [];
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (Array.isArray(parsed))
      before = parsed.filter((r): r is SeqRange => Number.isSafeInteger(r?.from) && Number.isSafeInteger(r?.to) && typeof r?.cause === 'string');
  } catch {
    // none yet (or unreadable: the damage found now is still reported)
  }
  const all = new Map<string, SeqRange>();
  for (const r of [...before, ...found]) if (r.to >= minSeq) all.set(`${r.from}-${r.to}`, { ...r, from: Math.max(r.from, minSeq) });
  const out = [...all.values()].sort((a, b) => a.from - b.from);
  if (JSON.stringify(out) !== JSON.stringify(before)) {
    try {
      if (out.length > 0) writeFileSync(path, JSON.stringify(out) + '\n', { mode: 0o600 });
      else rmSync(path, { force: true });
    } catch {
      // a read-only folder: reported for this run only
    }
  }
  return out;
}
