// Reading an image's parts (./imageParts.ts) back from a container, whatever holds their bytes:
// the file journal's snapshot file (../journal/snapshotFile.ts) reads them from a file, the
// JetStream store's snapshot object (../nats/snapshotObject.ts) from an object's stream. Each
// part is checked against the length, kind and crc32 its container's directory lists before it
// is handed out.
import { crc32 } from './crc32';
import { ImageError, PART_ARRAY, PART_JSON, type ArrayType, type ImagePart, type ImageReader, type TypedArray } from './imageParts';

/** A part as a container's directory lists it. */
export interface PartHead {
  kind: number;
  elementBytes: number;
  bytes: number;
  crc: number;
}

/** crc32 is computed this many bytes at a time, the event loop let go between (a snapshot is ~150 bytes per delivery). */
const CRC_CHUNK = 4 * 1024 * 1024;

/** crc32 of `bytes`, a chunk per turn of the event loop. */
export async function crcOf(bytes: Uint8Array): Promise<number> {
  let crc = 0;
  for (let at = 0; at < bytes.length; at += CRC_CHUNK) {
    crc = crc32(bytes.subarray(at, at + CRC_CHUNK), crc);
    if (at + CRC_CHUNK < bytes.length) await new Promise<void>((r) => setImmediate(r));
  }
  return crc;
}

/** The directory entries of `parts` (their crcs computed). */
export async function partHeads(parts: ImagePart[]): Promise<PartHead[]> {
  const heads: PartHead[] = [];
  for (const p of parts) heads.push({ kind: p.kind, elementBytes: p.elementBytes, bytes: p.bytes.length, crc: await crcOf(p.bytes) });
  return heads;
}

/** Reads parts in order through `fill` (which fills a buffer with the container's next bytes), each checked against its crc before it is handed out. */
export class PartsReader implements ImageReader {
  private next = 0;

  constructor(
    private readonly parts: readonly PartHead[],
    private readonly fill: (buf: Buffer) => Promise<void>,
  ) {}

  /** Reads the next part into the buffers `into` gives, one after another (their lengths add up to the part's). */
  private async part(kind: number, elementBytes: number, into: (bytes: number) => Buffer[]): Promise<number> {
    const p = this.parts[this.next++];
    if (!p || p.kind !== kind || p.elementBytes !== elementBytes || p.bytes % elementBytes !== 0)
      throw new ImageError(`part ${this.next - 1} is not the ${kind === PART_JSON ? 'JSON' : `array of ${elementBytes}-byte elements`} expected`);
    const bufs = into(p.bytes);
    if (bufs.reduce((n, b) => n + b.length, 0) !== p.bytes) throw new ImageError(`part ${this.next - 1} is not as long as expected`);
    let crc = 0;
    for (const buf of bufs) {
      await this.fill(buf);
      crc = crc32(buf, crc);
    }
    if (crc !== p.crc) throw new ImageError(`part ${this.next - 1} fails its checksum`);
    return p.bytes / elementBytes;
  }

  async bytesInto(into: Uint8Array[]): Promise<void> {
    await this.part(PART_ARRAY, 1, () => into.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)));
  }

  async array<T extends TypedArray>(type: ArrayType<T>, capacity = 0): Promise<{ array: T; length: number }> {
    let array: T | undefined;
    const length = await this.part(PART_ARRAY, type.BYTES_PER_ELEMENT, (bytes) => {
      array = new type(Math.max(capacity, bytes / type.BYTES_PER_ELEMENT));
      return [Buffer.from(array.buffer, array.byteOffset, bytes)];
    });
    return { array: array!, length };
  }

  async json<T>(): Promise<T> {
    let buf: Buffer | undefined;
    await this.part(PART_JSON, 1, (bytes) => [(buf = Buffer.allocUnsafe(bytes))]);
    try {
      return JSON.parse(buf!.toString('utf8')) as T;
    } catch {
      throw new ImageError(`part ${this.next - 1} is not JSON`);
    }
  }
}
