// The store's journal records and what each keeps in a segment index:
//   1 delivery: u32 LE meta length | meta JSON (DeliveryMeta) | body — indexed as a compact tuple
//   2 attempt:  JSON {seq, attempt, state?}                       — indexed as a tuple
//   3 prune:    JSON {minSeq}                                     — indexed as minSeq
import { DELIVERY_HEADER, EVENT_HEADER } from '../../src/core/signing';
import type { ForwardAttempt, ForwardState, ForwardStatus, Verification } from '../../src/core/relay/protocol';
import type { AttemptFields, IndexedDelivery, StateFields } from './compactIndex';
import type { DeliveryMeta } from './storeTypes';

export const T_DELIVERY = 1;
export const T_ATTEMPT = 2;
export const T_PRUNE = 3;

const EVENT_NAME = EVENT_HEADER.toLowerCase();
const DELIVERY_NAME = DELIVERY_HEADER.toLowerCase();

export interface AttemptRecord {
  seq: number;
  attempt: ForwardAttempt;
  /** New state of the target (absent for replays to another URL). */
  state?: ForwardState;
}

type DeliveryTuple = [
  seq: number,
  receivedMs: number,
  channel: string,
  verification: Verification,
  event: string | 0,
  deliveryId: string | 0,
  metaLength: number,
  targets: string[],
  reason: string | 0,
  /** What was received when only a prefix of the body is stored (absent in older index files). */
  received?: [size: number, sha256: string] | 0,
];

/** X-Service-Event and X-Service-Delivery from raw header pairs, in one pass (the first of each wins). */
export function headerIds(pairs: readonly [string, string][]): { event: string | undefined; deliveryId: string | undefined } {
  let event: string | undefined;
  let deliveryId: string | undefined;
  for (const [k, v] of pairs) {
    // Lower-casing only names of the right length.
    if (k.length === EVENT_NAME.length && event === undefined && k.toLowerCase() === EVENT_NAME) event = v;
    else if (k.length === DELIVERY_NAME.length && deliveryId === undefined && k.toLowerCase() === DELIVERY_NAME) deliveryId = v;
  }
  return { event, deliveryId };
}

export function indexedDelivery(meta: DeliveryMeta, metaLength: number): IndexedDelivery {
  const { event, deliveryId } = headerIds(meta.headers);
  return {
    seq: meta.seq,
    receivedMs: Date.parse(meta.receivedAt),
    channel: meta.channel,
    verification: meta.verification,
    ...(meta.reason ? { reason: meta.reason } : {}),
    event,
    deliveryId,
    metaLength,
    targets: meta.targets,
    ...(meta.received ? { received: meta.received } : {}),
  };
}

export function deliveryTuple(d: IndexedDelivery): DeliveryTuple {
  const tuple: DeliveryTuple = [d.seq, d.receivedMs, d.channel, d.verification, d.event ?? 0, d.deliveryId ?? 0, d.metaLength, d.targets, d.reason ?? 0];
  if (d.received) tuple.push([d.received.size, d.received.sha256]);
  return tuple;
}

export function fromTuple(t: DeliveryTuple): IndexedDelivery {
  const [seq, receivedMs, channel, verification, event, deliveryId, metaLength, targets, reason, received] = t;
  return {
    seq,
    receivedMs,
    channel,
    verification,
    ...(reason ? { reason } : {}),
    event: event || undefined,
    deliveryId: deliveryId || undefined,
    metaLength,
    targets,
    ...(received ? { received: { size: received[0], sha256: received[1] } } : {}),
  };
}

type StateTuple = [target: string, status: ForwardStatus, lastStatus: number | null, attempts: number, nextAttemptMs: number | null];
type AttemptTuple = [seq: number, target: string, atMs: number, status: number | null, ok: 0 | 1, durationMs: number, error: string | null, replay: 0 | 1, state: StateTuple | null];

/** An attempt record as an index entry: numbers and strings only (ISO times as ms). */
export function attemptTuple(rec: AttemptRecord): AttemptTuple {
  const { attempt: a, state: st } = rec;
  const state: StateTuple | null = st ? [st.target, st.status, st.lastStatus ?? null, st.attempts, st.nextAttemptAt ? Date.parse(st.nextAttemptAt) : null] : null;
  return [rec.seq, a.target, Date.parse(a.at), a.status ?? null, a.ok ? 1 : 0, Math.max(0, a.durationMs), a.error ?? null, a.replay ? 1 : 0, state];
}

/** An attempt (and state) as the compact index takes them. */
export function attemptFields(a: ForwardAttempt): AttemptFields {
  return { target: a.target, atMs: Date.parse(a.at), status: a.status, ok: a.ok, durationMs: a.durationMs, error: a.error, replay: a.replay };
}

export function stateFields(st: ForwardState | undefined): StateFields | undefined {
  if (!st) return undefined;
  return { target: st.target, status: st.status, lastStatus: st.lastStatus, attempts: st.attempts, nextAttemptMs: st.nextAttemptAt ? Date.parse(st.nextAttemptAt) : undefined };
}

/** The index entry of an attempt record, as the compact index takes it (no ISO strings built). */
export function fieldsFromTuple(t: AttemptTuple): { seq: number; attempt: AttemptFields; state?: StateFields } {
  const [seq, target, atMs, status, ok, durationMs, error, replay, st] = t;
  const attempt: AttemptFields = { target, atMs, status: status ?? undefined, ok: ok === 1, durationMs, error: error ?? undefined, replay: replay === 1 };
  if (!st) return { seq, attempt };
  const [sTarget, sStatus, lastStatus, attempts, next] = st;
  return { seq, attempt, state: { target: sTarget, status: sStatus, lastStatus: lastStatus ?? undefined, attempts, nextAttemptMs: next ?? undefined } };
}

export function parseMeta(payload: Buffer): { meta: DeliveryMeta; metaLength: number } {
  const metaLength = payload.readUInt32LE(0);
  return { meta: JSON.parse(payload.subarray(4, 4 + metaLength).toString('utf8')) as DeliveryMeta, metaLength };
}

/** A record's index entry, from its payload (at a scan). */
export function summarize(type: number, payload: Buffer): unknown {
  if (type === T_DELIVERY) {
    const { meta, metaLength } = parseMeta(payload);
    return deliveryTuple(indexedDelivery(meta, metaLength));
  }
  if (type === T_ATTEMPT) return attemptTuple(JSON.parse(payload.toString('utf8')) as AttemptRecord);
  if (type === T_PRUNE) return (JSON.parse(payload.toString('utf8')) as { minSeq: number }).minSeq;
  return null;
}
