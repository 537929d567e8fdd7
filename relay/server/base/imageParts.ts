// An image of in-memory state (the index snapshot, issue 40) as a list of parts: typed arrays
// kept as their bytes, small values as JSON, in the order a class writes them and reads them
// back. Each class writes and reads its own fields (Columns, StringColumn, AttemptArena,
// Interner, CompactIndex, LogStore, JournalLog), so a change to one class changes one place; a
// container (the file journal's snapshot file: ../journal/snapshotFile.ts; later perhaps a
// JetStream object) only stores the parts, each with its crc32.
export type TypedArray = Float64Array | Uint32Array | Int32Array | Uint16Array | Uint8Array;
export interface ArrayType<T extends TypedArray> {
  new (length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

export const PART_ARRAY = 0;
export const PART_JSON = 1;

/** A part as written: its kind, element size (1 for JSON), bytes. */
export interface ImagePart {
  kind: typeof PART_ARRAY | typeof PART_JSON;
  elementBytes: number;
  bytes: Uint8Array;
}

/** Collects the parts of an image. The arrays given are kept as they are: give copies of anything that changes later. */
export class ImageWriter {
  readonly parts: ImagePart[] = [];

  array(a: TypedArray): void {
    this.parts.push({ kind: PART_ARRAY, elementBytes: a.BYTES_PER_ELEMENT, bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) });
  }

  json(value: unknown): void {
    this.parts.push({ kind: PART_JSON, elementBytes: 1, bytes: Buffer.from(JSON.stringify(value), 'utf8') });
  }

  get bytes(): number {
    return this.parts.reduce((n, p) => n + p.bytes.length, 0);
  }
}

/** An image whose parts do not fit what reads them (a damaged or foreign image: never used). */
export class ImageError extends Error {}

/** Reads an image's parts back in order; every method throws ImageError when the next part is not what is asked for. */
export interface ImageReader {
  /** The next part, an array of `type`, in a fresh array of max(`capacity`, its length) elements; `length`: the elements it held. */
  array<T extends TypedArray>(type: ArrayType<T>, capacity?: number): Promise<{ array: T; length: number }>;
  json<T>(): Promise<T>;
  /** The next part, bytes, read into the views `into`, one after another (throws ImageError unless their lengths add up to the part's). */
  bytesInto(into: Uint8Array[]): Promise<void>;
}

/** Throws ImageError unless `ok`. */
export function imageCheck(ok: boolean, what: string): asserts ok {
  if (!ok) throw new ImageError(`image does not fit: ${what}`);
}
