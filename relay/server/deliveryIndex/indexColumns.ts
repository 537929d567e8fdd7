// The index's typed-array columns, one element per row, and the codes and flags stored in them.
import type { ForwardState, ForwardStatus, Verification } from '../../../src/core/relay/protocol';
import type { StateFields } from './indexRows';
import { imageCheck, type ArrayType, type ImageReader, type ImageWriter, type TypedArray } from '../base/imageParts';

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

/** The room for `rows` rows when a snapshot is read: what growing by doubling from 1,024 would have made. */
export function capacityFor(rows: number): number {
  let n = 1024;
  while (n <= rows) n *= 2;
  return n;
}

export class Columns {
  seq = new Float64Array(0);
  segment = new Uint32Array(0);
  offset = new Float64Array(0);
  length = new Uint32Array(0);
  size = new Uint32Array(0);
  receivedMs = new Float64Array(0);
  channel = new Uint16Array(0);
  event = new Uint16Array(0);
  targets = new Uint16Array(0);
  verification = new Uint8Array(0);
  flags = new Uint8Array(0);
  // The forward state of a delivery with exactly one target (others keep objects).
  fStatus = new Uint8Array(0);
  fAttempts = new Uint32Array(0);
  fLastStatus = new Uint16Array(0);
  fNextMs = new Float64Array(0);
  // Its attempts: a chain in the attempt arena.
  aHead = new Int32Array(0);
  aTail = new Int32Array(0);
  aCount = new Uint32Array(0);

  /** Copies rows [from, to) to a fresh set of columns of `capacity` rows. */
  resized(capacity: number, from: number, to: number): Columns {
    const next = new Columns();
    for (const key of Object.keys(this) as (keyof Columns)[]) {
      const col = this[key] as Float64Array | Uint32Array | Uint16Array | Uint8Array;
      const fresh = new (col.constructor as new (n: number) => typeof col)(capacity);
      fresh.set(col.subarray(from, to));
      (next as unknown as Record<string, unknown>)[key] = fresh;
    }
    return next;
  }

  /** Writes rows [from, to) of every column, copied (an index snapshot: ../base/imageParts.ts). */
  save(w: ImageWriter, from: number, to: number): void {
    for (const key of Object.keys(this) as (keyof Columns)[]) w.array((this[key] as TypedArray).slice(from, to));
  }

  /** The `rows` rows save() wrote, in arrays of `capacity(rows)` rows. */
  static async load(r: ImageReader, capacity: (rows: number) => number, rows: number): Promise<Columns> {
    const next = new Columns();
    for (const key of Object.keys(next) as (keyof Columns)[]) {
      const col = next[key] as TypedArray;
      const { array, length } = await r.array(col.constructor as ArrayType<TypedArray>, capacity(rows));
      imageCheck(length === rows, `column ${key} holds ${length} rows, not ${rows}`);
      (next as unknown as Record<string, unknown>)[key] = array;
    }
    return next;
  }
}
