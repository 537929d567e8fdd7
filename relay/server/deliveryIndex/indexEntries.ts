// The store's segment-index entries, binary (what the index keeps of each journal record; never
// a body). Numbers little-endian; seqs, times, sizes and durations as f64 (exact for integers up
// to 2^53); strings as u32 length + UTF-8; optional fields behind a flags byte.
//
//   delivery: f64 seq | f64 receivedMs | u8 verification | u8 flags | u32 metaLength | str channel
//             | [str event] | [str deliveryId] | u32 n | n × str target | [str reason]
//             | [f64 received.size | str received.sha256] | [str gen]
//   attempt:  f64 seq | f64 atMs | f64 durationMs | u8 flags | u16 status | str target | [str error]
//             | [u8 state.status | u32 state.attempts | u16 state.lastStatus | f64 state.nextAttemptMs
//                | str state.target]
//   prune:    f64 minSeq
import type { ForwardStatus, Verification } from '../../../src/core/relay/protocol';
import { ByteWriter, type ByteReader } from '../base/bytes';
import type { AttemptFields } from './attemptArena';
import type { IndexedDelivery, StateFields } from './indexRows';

const VERIFICATIONS: readonly Verification[] = ['verified', 'unverified', 'rejected'];
const STATUSES: readonly ForwardStatus[] = ['pending', 'ok', 'failed', 'skipped']; // appended: codes 0-2 stay as journaled

// Delivery flags.
const D_EVENT = 1;
const D_ID = 2;
const D_REASON = 4;
const D_RECEIVED = 8;
const D_GEN = 16;
// Attempt flags.
const A_OK = 1;
const A_REPLAY = 2;
const A_STATUS = 4;
const A_ERROR = 8;
const A_STATE = 16;
const S_LAST = 32;
const S_NEXT = 64;

// Fields whose values repeat from record to record (decoded once, then reused: ../base/bytes.ts).
const K_CHANNEL = 0;
const K_EVENT = 1;
const K_TARGET = 2;
const K_ERROR = 3;
const K_GEN = 4;

export interface AttemptEntry {
  seq: number;
  attempt: AttemptFields;
  state?: StateFields;
}

const w = new ByteWriter();

function code<T>(table: readonly T[], value: T): number {
  const i = table.indexOf(value);
  if (i < 0) throw new RangeError(`not indexable: ${String(value)}`);
  return i;
}

function decoded<T>(table: readonly T[], i: number): T {
  const v = table[i];
  if (v === undefined) throw new RangeError(`bad index entry code ${i}`);
  return v;
}

export function encodeDelivery(d: IndexedDelivery): Buffer {
  const flags =
    (d.event != null ? D_EVENT : 0) | (d.deliveryId != null ? D_ID : 0) | (d.reason ? D_REASON : 0) | (d.received ? D_RECEIVED : 0) | (d.gen ? D_GEN : 0);
  w.reset().f64(d.seq).f64(d.receivedMs).u8(code(VERIFICATIONS, d.verification)).u8(flags).u32(d.metaLength).str(d.channel);
  if (d.event != null) w.str(d.event);
  if (d.deliveryId != null) w.str(d.deliveryId);
  w.u32(d.targets.length);
  for (const t of d.targets) w.str(t);
  if (d.reason) w.str(d.reason);
  if (d.received) w.f64(d.received.size).str(d.received.sha256);
  if (d.gen) w.str(d.gen);
  return w.finish();
}

/** A delivery entry; with `rawId` its delivery id comes as bytes (deliveryIdUtf8), for the index to keep as such. */
/** The seq of a delivery's or an attempt's entry (each starts with it), nothing else decoded. */
export function entrySeq(r: ByteReader): number {
  return r.f64();
}

export function decodeDelivery(r: ByteReader, rawId = false): IndexedDelivery {
  const seq = r.f64();
  const receivedMs = r.f64();
  const verification = decoded(VERIFICATIONS, r.u8());
  const flags = r.u8();
  const metaLength = r.u32();
  const channel = r.str(K_CHANNEL);
  const d: IndexedDelivery = { seq, receivedMs, channel, verification, metaLength, targets: [] };
  if (flags & D_EVENT) d.event = r.str(K_EVENT);
  if (flags & D_ID) {
    if (rawId) d.deliveryIdUtf8 = r.utf8();
    else d.deliveryId = r.str();
  }
  const n = r.u32();
  for (let i = 0; i < n; i++) d.targets.push(r.str(K_TARGET));
  if (flags & D_REASON) d.reason = r.str();
  if (flags & D_RECEIVED) d.received = { size: r.f64(), sha256: r.str() };
  if (flags & D_GEN) d.gen = r.str(K_GEN);
  return d;
}

export function encodeAttempt(seq: number, a: AttemptFields, st: StateFields | undefined): Buffer {
  let flags = (a.ok ? A_OK : 0) | (a.replay ? A_REPLAY : 0) | (a.status != null ? A_STATUS : 0) | (a.error != null ? A_ERROR : 0);
  if (st) flags |= A_STATE | (st.lastStatus != null ? S_LAST : 0) | (st.nextAttemptMs != null ? S_NEXT : 0);
  // Durations are kept as at least 0 (as the index always did); statuses as u16, as the index
  // holds them in memory.
  w.reset()
    .f64(seq)
    .f64(a.atMs)
    .f64(Math.max(0, a.durationMs))
    .u8(flags)
    .u16((a.status ?? 0) & 0xffff)
    .str(a.target);
  if (a.error != null) w.str(a.error);
  if (st)
    w.u8(code(STATUSES, st.status))
      .u32(st.attempts >>> 0)
      .u16((st.lastStatus ?? 0) & 0xffff)
      .f64(st.nextAttemptMs ?? 0)
      .str(st.target);
  return w.finish();
}

/**
 * An attempt entry decoded into `into`, whose objects are reused from one call to the next (a
 * restart decodes a million: no three objects each to collect). Absent optional fields are set
 * to undefined; whoever keeps the objects past the next call copies them.
 */
export function decodeAttemptInto(r: ByteReader, into: { seq: number; attempt: AttemptFields; state: StateFields; hasState: boolean }): void {
  into.seq = r.f64();
  const a = into.attempt;
  a.atMs = r.f64();
  a.durationMs = r.f64();
  const flags = r.u8();
  const status = r.u16();
  a.target = r.str(K_TARGET);
  a.ok = (flags & A_OK) !== 0;
  a.status = flags & A_STATUS ? status : undefined;
  a.error = flags & A_ERROR ? r.str(K_ERROR) : undefined;
  a.replay = flags & A_REPLAY ? true : undefined;
  into.hasState = (flags & A_STATE) !== 0;
  if (!into.hasState) return;
  const st = into.state;
  st.status = decoded(STATUSES, r.u8());
  st.attempts = r.u32();
  const lastStatus = r.u16();
  const next = r.f64();
  st.target = r.str(K_TARGET);
  st.lastStatus = flags & S_LAST ? lastStatus : undefined;
  st.nextAttemptMs = flags & S_NEXT ? next : undefined;
}

/** An attempt entry as fresh objects, without absent fields (decodeAttemptInto, for callers that keep it). */
export function decodeAttempt(r: ByteReader): AttemptEntry {
  const into = { seq: 0, attempt: {} as AttemptFields, state: {} as StateFields, hasState: false };
  decodeAttemptInto(r, into);
  return { seq: into.seq, attempt: present(into.attempt), ...(into.hasState ? { state: present(into.state) } : {}) };
}

/** `o` without its undefined fields. */
function present<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function encodePrune(minSeq: number): Buffer {
  return w.reset().f64(minSeq).finish();
}

export function decodePrune(r: ByteReader): number {
  return r.f64();
}
