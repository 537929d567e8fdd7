// The store's journal records and what each keeps in a segment index:
//   1 delivery: u32 LE meta length | meta JSON (DeliveryMeta) | body — indexed as IndexedDelivery
//   2 attempt:  JSON {seq, attempt, state?}                       — indexed as AttemptEntry
//   3 prune:    JSON {minSeq}                                     — indexed as minSeq
//   4 drop rejected: JSON {upTo}                                  — indexed as upTo
// (entries in binary: ../deliveryIndex/indexEntries.ts)
import { DELIVERY_HEADER, EVENT_HEADER } from '../../../src/core/signing';
import type { ForwardAttempt, ForwardState } from '../../../src/core/relay/protocol';
import type { AttemptFields, IndexedDelivery, StateFields } from '../deliveryIndex/compactIndex';
import type { DeliveryMeta } from './storeTypes';
import { encodeAttempt, encodeDelivery, encodePrune } from '../deliveryIndex/indexEntries';

export const T_DELIVERY = 1;
export const T_ATTEMPT = 2;
export const T_PRUNE = 3;
/** JSON {upTo}: every rejected delivery with seq <= upTo is gone (their own retention); indexed as upTo. */
export const T_DROP_REJECTED = 4;

const EVENT_NAME = EVENT_HEADER.toLowerCase();
const DELIVERY_NAME = DELIVERY_HEADER.toLowerCase();

export interface AttemptRecord {
  seq: number;
  attempt: ForwardAttempt;
  /** New state of the target (absent for replays to another URL). */
  state?: ForwardState;
}

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
    ...(meta.gen ? { gen: meta.gen } : {}),
    verification: meta.verification,
    ...(meta.reason ? { reason: meta.reason } : {}),
    event,
    deliveryId,
    metaLength,
    targets: meta.targets,
    ...(meta.received ? { received: meta.received } : {}),
  };
}

/** An attempt (and state) as the compact index takes them. */
export function attemptFields(a: ForwardAttempt): AttemptFields {
  return { target: a.target, atMs: Date.parse(a.at), status: a.status, ok: a.ok, durationMs: a.durationMs, error: a.error, replay: a.replay };
}

export function stateFields(st: ForwardState | undefined): StateFields | undefined {
  if (!st) return undefined;
  return { target: st.target, status: st.status, lastStatus: st.lastStatus, attempts: st.attempts, nextAttemptMs: st.nextAttemptAt ? Date.parse(st.nextAttemptAt) : undefined };
}

export function parseMeta(payload: Buffer): { meta: DeliveryMeta; metaLength: number } {
  const metaLength = payload.readUInt32LE(0);
  return { meta: JSON.parse(payload.subarray(4, 4 + metaLength).toString('utf8')) as DeliveryMeta, metaLength };
}

/** A record's index entry (../deliveryIndex/indexEntries.ts), from its payload (at a scan). */
export function summarize(type: number, payload: Buffer): Buffer {
  if (type === T_DELIVERY) {
    const { meta, metaLength } = parseMeta(payload);
    return encodeDelivery(indexedDelivery(meta, metaLength));
  }
  if (type === T_ATTEMPT) {
    const rec = JSON.parse(payload.toString('utf8')) as AttemptRecord;
    return encodeAttempt(rec.seq, attemptFields(rec.attempt), stateFields(rec.state));
  }
  if (type === T_PRUNE) return encodePrune((JSON.parse(payload.toString('utf8')) as { minSeq: number }).minSeq);
  if (type === T_DROP_REJECTED) return encodePrune((JSON.parse(payload.toString('utf8')) as { upTo: number }).upTo);
  return Buffer.alloc(0);
}
