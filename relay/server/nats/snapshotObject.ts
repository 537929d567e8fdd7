// The JetStream store's index snapshot as an object (issue 40; when and how it is used:
// ./natsSnapshot.ts): one object, SNAPSHOT_OBJECT, in a JetStream object store bucket
// (<prefix>_INDEX; its stream OBJ_<prefix>_INDEX, with the streams' replicas). Its bytes are an
// image's parts (../base/imageParts.ts) one after another; its metadata `head` is JSON: the
// format, where the snapshot was taken and what it was taken of (SnapshotHead), and each part's
// length, kind and crc32 (checked as it is read: ../base/partsReader.ts). The object store also
// checks the whole object's SHA-256 as it is read. A newer write replaces the object (the last
// write wins); the object store removes the older one's chunks.
//
// Why @nats-io/obj: the snapshot is ~150 bytes per delivery held (150 MB at a million), far
// above a message's or a KV value's size limit; the object store splits it into chunks, writes
// them to a replicated stream and reads them back in order, digest checked.
import { StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Objm, setSha256Backend, type ObjectStore } from '@nats-io/obj';
import type { ImagePart, ImageReader } from '../base/imageParts';
import { partHeads, PartsReader, type PartHead } from '../base/partsReader';

// Node's own SHA-256 (the object store's default is a pure-JS one, several times slower on 150 MB).
setSha256Backend('native');

export const SNAPSHOT_OBJECT = 'index-snapshot';
/** The format of the object; another is not read (written by another build). */
export const SNAPSHOT_FORMAT = 1;
/** Bytes per chunk of the object (the object store's default is 128 KiB: a publish round trip each). */
const CHUNK = 1024 * 1024;

/** A stream message the snapshot names: its seq and message id (Nats-Msg-Id). */
export interface MessageMark {
  seq: number;
  id: string;
}

/** Where a snapshot was taken, on what: checked against the streams before it is used (./natsSnapshot.ts). */
export interface SnapshotHead {
  format: number;
  /** The deliveries stream's identity (../store/storeIdentity.ts) and the attempts stream's creation time. */
  identity: string;
  attemptsCreated: string;
  /** P: the last message of each stream the snapshot holds (a seq passed over as absent: id ''). */
  deliveries: MessageMark;
  attempts: MessageMark;
  /** The lowest delivery seq the snapshot holds as live. */
  liveFrom: number;
  /** The log's own fields at P. */
  highestSeq: number;
  indexedUpTo: number;
}

interface StoredHead extends SnapshotHead {
  parts: PartHead[];
}

/** The bucket's name for a store prefix. */
export function snapshotBucket(prefix: string): string {
  return `${prefix}_INDEX`;
}

/** Opens (creating it when missing) the bucket that keeps the snapshot. */
export function snapshotStore(nc: NatsConnection, bucket: string, replicas: number): Promise<ObjectStore> {
  return new Objm(nc).create(bucket, { replicas, storage: StorageType.File });
}

/** The head of the snapshot stored in `os`, without reading its bytes (undefined: none; a string: why it cannot be used). */
export async function snapshotHead(os: ObjectStore): Promise<SnapshotHead | string | undefined> {
  const info = await os.info(SNAPSHOT_OBJECT);
  if (!info || info.deleted) return undefined;
  return decodeHead(info.metadata?.head);
}

function decodeHead(text: string | undefined): StoredHead | string {
  let head: StoredHead;
  try {
    head = JSON.parse(text ?? '') as StoredHead;
  } catch {
    return 'its head is not readable';
  }
  if (typeof head !== 'object' || head === null) return 'its head is not readable';
  if (head.format !== SNAPSHOT_FORMAT) return `format ${String(head.format)}, not ${SNAPSHOT_FORMAT}`;
  const mark = (m: MessageMark | undefined) => typeof m === 'object' && m !== null && Number.isSafeInteger(m.seq) && m.seq >= 0 && typeof m.id === 'string';
  const ok =
    typeof head.identity === 'string' &&
    typeof head.attemptsCreated === 'string' &&
    mark(head.deliveries) &&
    mark(head.attempts) &&
    [head.liveFrom, head.highestSeq, head.indexedUpTo].every((n) => Number.isSafeInteger(n) && n >= 0) &&
    Array.isArray(head.parts) &&
    head.parts.every((p) => [p.kind, p.elementBytes, p.bytes, p.crc].every((n) => Number.isSafeInteger(n) && n >= 0));
  return ok ? head : 'its head does not fit';
}

/** Writes the snapshot (replacing the one there); resolves to its bytes. */
export async function writeSnapshotObject(os: ObjectStore, head: SnapshotHead, parts: ImagePart[]): Promise<number> {
  const stored: StoredHead = { ...head, parts: await partHeads(parts) };
  let next = 0;
  let at = 0;
  const data = new ReadableStream<Uint8Array>({
    pull(controller) {
      const p = parts[next];
      if (!p) return controller.close();
      controller.enqueue(p.bytes.subarray(at, at + CHUNK));
      at += CHUNK;
      if (at >= p.bytes.length) [next, at] = [next + 1, 0];
    },
  });
  const info = await os.put({ name: SNAPSHOT_OBJECT, metadata: { head: JSON.stringify(stored) }, options: { max_chunk_size: CHUNK } }, data);
  return info.size;
}

/** A snapshot object opened for reading: its head, its parts (close it after). */
export interface OpenedObject {
  head: SnapshotHead;
  reader: ImageReader;
  close(): Promise<void>;
}

/** Opens the snapshot for reading (undefined: there is none; a string: why it cannot be used). */
export async function openSnapshotObject(os: ObjectStore): Promise<OpenedObject | string | undefined> {
  const result = await os.get(SNAPSHOT_OBJECT);
  if (!result) return undefined;
  const source = result.data.getReader();
  const head = decodeHead(result.info.metadata?.head);
  if (typeof head === 'string') {
    await source.cancel().catch(() => undefined);
    return head;
  }
  let chunk: Uint8Array = new Uint8Array(0);
  let at = 0;
  const fill = async (buf: Buffer): Promise<void> => {
    for (let done = 0; done < buf.length;) {
      if (at >= chunk.length) {
        const r = await source.read();
        if (r.done) throw new Error((await result.error)?.message ?? 'the object ends before its parts do');
        [chunk, at] = [r.value, 0];
      }
      const n = Math.min(buf.length - done, chunk.length - at);
      buf.set(chunk.subarray(at, at + n), done);
      [at, done] = [at + n, done + n];
    }
  };
  return { head, reader: new PartsReader(head.parts, fill), close: () => source.cancel().catch(() => undefined) };
}
