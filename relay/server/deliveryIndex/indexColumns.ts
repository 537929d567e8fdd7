// The index's typed-array columns, one element per row, and the codes and flags stored in them.
import type { ForwardState, ForwardStatus, Verification } from '../../../src/core/relay/protocol';
import type { StateFields } from './indexRows';
import { RelColumn, RunColumn } from './packedColumns';

export const VERIFICATIONS: Verification[] = ['verified', 'unverified', 'rejected'];
export const STATUSES: ForwardStatus[] = ['pending', 'ok', 'failed', 'skipped']; // appended: the codes are journaled
export const PENDING = 1;
export const FAILED = 2;
export const ALL_OK = 4;
/** A rejected delivery past the rejected deliveries' own retention: out of every list and count. */
export const HIDDEN = 8;
export const REJECTED = 2; // VERIFICATIONS.indexOf('rejected')

export function flagsOf(states: readonly { status: ForwardStatus }[]): number {
  let f = 0;
  for (const s of states) f |= s.status === 'pending' ? PENDING : s.status === 'failed' ? FAILED : 0;
  if (states.length > 0 && states.every((s) => s.status === 'ok')) f |= ALL_OK;
  return f;
}

export function stateObject(target: string, s: StateFields): ForwardState {
  return {
    target,
    status: s.status,
    ...(s.lastStatus !== undefined ? { lastStatus: s.lastStatus } : {}),
    attempts: s.attempts,
    ...(s.nextAttemptMs !== undefined ? { nextAttemptAt: new Date(s.nextAttemptMs).toISOString() } : {}),
  };
}

/** The one target's status of a one-target row (apart from PENDING, FAILED and ALL_OK): skipped (counted as failed). */
export const SKIPPED = 16;
/** The bits above that say a one-target row's forward state. */
export const STATE_BITS = PENDING | FAILED | ALL_OK | SKIPPED;
/** The row holds its first attempt (./rowAttempts.ts), ok or not, a replay or not. */
export const INLINE = 32;
export const INLINE_OK = 64;
export const INLINE_REPLAY = 128;

/** The flags of a one-target row whose target is in `status`. */
export function stateFlags(status: ForwardStatus): number {
  return status === 'ok' ? ALL_OK : status === 'pending' ? PENDING : status === 'skipped' ? FAILED | SKIPPED : FAILED;
}

/** The status of a one-target row from its flags. */
export function statusOfFlags(f: number): ForwardStatus {
  return f & SKIPPED ? 'skipped' : f & ALL_OK ? 'ok' : f & PENDING ? 'pending' : 'failed';
}

/**
 * One element per row. A row's channel, event, target list and verification are one shape id
 * (./shapes.ts). A one-target row's forward state is its flags and code (./rowCodes.ts); its
 * first attempt, when it fits, is held in the row (i*, ./rowAttempts.ts).
 */
export class Columns {
  seq = new RunColumn(1);
  segment = new RunColumn(0);
  offset = new RelColumn(32, true);
  /** Body size and record length (./recordSizes.ts). */
  size = new Uint16Array(0);
  extra = new Uint16Array(0);
  receivedMs = new RelColumn(32);
  shape = new RelColumn(16, true);
  flags = new Uint8Array(0);
  /** A one-target row's attempt count, last status and held attempt's status, as one code (./rowCodes.ts). */
  code = new Uint8Array(0);
  /** The first attempt held in the row: ms after the receipt, duration in µs. */
  iAt = new Uint32Array(0);
  iDur = new Uint32Array(0);

  get capacity(): number {
    return this.flags.length;
  }

  /**
   * Copies rows [from, to) to a fresh set of columns of `capacity` rows, all in one ArrayBuffer:
   * one large allocation is mapped apart (malloc's mmap) and given back whole when the next
   * growth frees it, and its untouched capacity takes no memory; a dozen smaller ones came from
   * the heap, zeroed there page by page, and left holes (~20 bytes a row of RSS at 4M rows).
   */
  resized(capacity: number, from: number, to: number): Columns {
    type Col = RunColumn | RelColumn | Uint32Array | Uint16Array | Uint8Array;
    const next = new Columns();
    const cols = this as unknown as Record<string, Col>;
    const keys = Object.keys(this);
    const width = (col: Col): number => (col instanceof RunColumn ? 0 : col instanceof RelColumn ? col.bytes : col.BYTES_PER_ELEMENT);
    // Widest first, so every view is aligned (capacity is a multiple of 4).
    keys.sort((x, y) => width(cols[y]!) - width(cols[x]!));
    const buffer = new ArrayBuffer(keys.reduce((n, k) => n + width(cols[k]!), 0) * Math.ceil(capacity / 4) * 4);
    let at = 0;
    for (const key of keys) {
      const col = cols[key]!;
      const w = width(col);
      if (col instanceof RunColumn) {
        (next as unknown as Record<string, Col>)[key] = col.resized(capacity, from, to);
        continue;
      }
      const view = w === 4 ? new Uint32Array(buffer, at, capacity) : w === 2 ? new Uint16Array(buffer, at, capacity) : new Uint8Array(buffer, at, capacity);
      at += w * Math.ceil(capacity / 4) * 4;
      let fresh: Col;
      if (col instanceof RelColumn) fresh = col.resized(capacity, from, to, view as Uint16Array | Uint32Array);
      else {
        view.set(col.subarray(from, to));
        fresh = view as Uint8Array;
      }
      (next as unknown as Record<string, unknown>)[key] = fresh;
    }
    return next;
  }
}
