// The store's journal records and what each keeps in a segment index:
//   1 delivery: u32 LE meta length | meta | body                     — indexed as IndexedDelivery
//               meta: JSON (DeliveryMeta; its first byte is '{', written before issue 24), or
//               binary: u8 1 | the delivery's index entry (../deliveryIndex/indexEntries.ts) | u32 n | n × (str name, str value)
//   2 attempt:  JSON {seq, attempt, state?}                       — indexed as AttemptEntry
//               (written before issue 24; still read)
//   5 attempt:  its index entry (../deliveryIndex/indexEntries.ts encodeAttempt) — indexed as itself
//   3 prune:    JSON {minSeq}                                     — indexed as minSeq
//   4 drop rejected: JSON {upTo}                                  — indexed as upTo
// (entries in binary: ../deliveryIndex/indexEntries.ts)
import { DELIVERY_HEADER, EVENT_HEADER } from '../../../src/core/signing';
import type { ForwardAttempt, ForwardState } from '../../../src/core/relay/protocol';
import type { AttemptFields, IndexedDelivery, StateFields } from '../deliveryIndex/compactIndex';
import type { DeliveryMeta, NewDelivery } from '../base/storeTypes';
import { decodeDelivery, encodeAttempt, encodeDelivery, encodePrune } from '../deliveryIndex/indexEntries';
import { ByteReader, ByteWriter } from '../base/bytes';

export const T_DELIVERY = 1;
export const T_ATTEMPT = 2;
export const T_PRUNE = 3;
/** JSON {upTo}: every rejected delivery with seq <= upTo is gone (their own retention); indexed as upTo. */
export const T_DROP_REJECTED = 4;
/**
 * A forward attempt whose payload is its binary index entry: the index is all that is ever read
 * of an attempt record, so the JSON of T_ATTEMPT (about a tenth of a delivery's CPU on the relay's
 * hot path) bought nothing. T_ATTEMPT records in older journals are still read.
 */
export const T_ATTEMPT_ENTRY = 5;

/** Whether a record type holds a forward attempt (either form). */
export function isAttempt(type: number): boolean {
  return type === T_ATTEMPT_ENTRY || type === T_ATTEMPT;
}

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
  return indexedOf(meta.seq, Date.parse(meta.receivedAt), meta, metaLength);
}

/** What the index keeps of a delivery (the one place its fields are picked). */
function indexedOf(seq: number, receivedMs: number, meta: NewDelivery, metaLength: number): IndexedDelivery {
  const { event, deliveryId } = headerIds(meta.headers);
  return {
    seq,
    receivedMs,
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
  return {
    target: st.target,
    status: st.status,
    lastStatus: st.lastStatus,
    attempts: st.attempts,
    nextAttemptMs: st.nextAttemptAt ? Date.parse(st.nextAttemptAt) : undefined,
  };
}

/** The first byte of a binary delivery meta (a JSON one starts with '{'). */
const META_BINARY = 1;
/** Where the index entry's u32 metaLength sits in a binary meta: after the version byte, f64 seq, f64 receivedMs, u8, u8. */
const META_LENGTH_AT = 1 + 18;
const headerWriter = new ByteWriter();
const metaReader = new ByteReader();

/**
 * A new delivery's record parts before its body (u32 meta length | binary meta) and what the index
 * keeps of it. The meta embeds the index entry, so the entry is encoded once and the JSON of the
 * earlier format (the largest part of a delivery's journal cost) is gone.
 */
export function deliveryRecord(seq: number, receivedMs: number, meta: NewDelivery): { head: Buffer; indexed: IndexedDelivery; entry: Buffer } {
  const indexed = indexedOf(seq, receivedMs, meta, 0); // metaLength set below, once the meta's size is known
  const entry = encodeDelivery(indexed);
  headerWriter.reset().u32(meta.headers.length);
  for (const [k, v] of meta.headers) headerWriter.str(k).str(v);
  const headers = headerWriter.finish();
  const metaLength = 1 + entry.length + headers.length;
  indexed.metaLength = metaLength;
  const head = Buffer.allocUnsafe(4 + metaLength);
  head.writeUInt32LE(metaLength, 0);
  head[4] = META_BINARY;
  entry.writeUInt32LE(metaLength, META_LENGTH_AT - 1);
  entry.copy(head, 5);
  headers.copy(head, 5 + entry.length);
  return { head, indexed, entry };
}

/** A delivery's meta from its bytes (either format). */
export function decodeMeta(bytes: Buffer): DeliveryMeta {
  if (bytes[0] !== META_BINARY) return JSON.parse(bytes.toString('utf8')) as DeliveryMeta;
  const r = metaReader.at(bytes, 1, bytes.length);
  const d = decodeDelivery(r);
  const n = r.u32();
  const headers: [string, string][] = [];
  for (let i = 0; i < n; i++) headers.push([r.str(), r.str()]);
  return {
    seq: d.seq,
    channel: d.channel,
    ...(d.gen ? { gen: d.gen } : {}),
    receivedAt: new Date(d.receivedMs).toISOString(),
    verification: d.verification,
    ...(d.reason ? { reason: d.reason } : {}),
    headers,
    targets: d.targets,
    ...(d.received ? { received: d.received } : {}),
  };
}

export function parseMeta(payload: Buffer): { meta: DeliveryMeta; metaLength: number } {
  const metaLength = payload.readUInt32LE(0);
  return { meta: decodeMeta(payload.subarray(4, 4 + metaLength)), metaLength };
}

/** A binary meta's index entry, as a buffer of its own (undefined for a JSON meta). */
function embeddedEntry(payload: Buffer): Buffer | undefined {
  if (payload[4] !== META_BINARY) return undefined;
  const r = metaReader.at(payload, 5, 4 + payload.readUInt32LE(0));
  decodeDelivery(r);
  return Buffer.from(payload.subarray(5, r.pos));
}

/** A record's index entry (../deliveryIndex/indexEntries.ts), from its payload (at a scan). */
export function summarize(type: number, payload: Buffer): Buffer {
  if (type === T_DELIVERY) {
    const entry = embeddedEntry(payload);
    if (entry) return entry;
    const { meta, metaLength } = parseMeta(payload);
    return encodeDelivery(indexedDelivery(meta, metaLength));
  }
  if (type === T_ATTEMPT) {
    const rec = JSON.parse(payload.toString('utf8')) as AttemptRecord;
    return encodeAttempt(rec.seq, attemptFields(rec.attempt), stateFields(rec.state));
  }
  if (type === T_ATTEMPT_ENTRY) return Buffer.from(payload); // (a copy: the payload may be a view of a larger read)
  if (type === T_PRUNE) return encodePrune((JSON.parse(payload.toString('utf8')) as { minSeq: number }).minSeq);
  if (type === T_DROP_REJECTED) return encodePrune((JSON.parse(payload.toString('utf8')) as { upTo: number }).upTo);
  return Buffer.alloc(0);
}
