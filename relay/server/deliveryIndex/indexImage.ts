// What an index snapshot holds of CompactIndex besides its columns and tables (./compactIndex.ts
// save() and load()): the counters, the sparse maps and the forward states of rows with several
// targets, as one JSON part, checked for shape before it is used.
import type { ForwardState } from '../../../src/core/relay/protocol';
import { imageCheck } from '../base/imageParts';

export interface IndexImage {
  rows: number;
  hidden: number;
  hiddenUpTo: number;
  channelLast: number[];
  counts: ({ received: number; verified: number; unverified: number; rejected: number; forwarded: number; failed: number; pending: number } | null)[];
  reasons: [number, string][];
  received: [number, { size: number; sha256: string }][];
  /** By live row (0: the first). */
  forward: [number, ForwardState[]][];
  targetArrays: string[][];
}

const count = (n: unknown): boolean => Number.isSafeInteger(n) && (n as number) >= 0;

/** Throws ImageError unless `m` has the shape save() writes. */
export function checkIndexImage(m: IndexImage): void {
  imageCheck(typeof m === 'object' && m !== null, 'index image');
  imageCheck(count(m.rows) && count(m.hidden) && count(m.hiddenUpTo), 'index rows');
  imageCheck(Array.isArray(m.channelLast) && m.channelLast.every((n) => n === null || count(n)), 'channel lasts');
  imageCheck(Array.isArray(m.counts) && Array.isArray(m.reasons) && Array.isArray(m.received), 'index counts and maps');
  imageCheck(Array.isArray(m.forward) && m.forward.every(([k, f]) => count(k) && k < m.rows && Array.isArray(f)), 'forward states');
  imageCheck(Array.isArray(m.targetArrays) && m.targetArrays.every((t) => Array.isArray(t) && t.every((x) => typeof x === 'string')), 'target lists');
}
