// Little-endian byte writing and reading for the segment index's binary entries: fixed-width
// numbers (u8, u16, u32, f64) and strings as a u32 byte length + UTF-8. The writer encodes into
// one scratch buffer and hands out an exact-size copy; the reader walks a range of a buffer
// in place (the journal points one reader at each record in turn: no object per record).

/**
 * Writes `s` as UTF-8 at `at` (room for 3 bytes per UTF-16 unit assumed); returns the bytes
 * written. Short ASCII strings (ids, names, URLs) are copied in a loop: Buffer#write's argument
 * handling costs more than the copy.
 */
export function writeUtf8(buf: Buffer, s: string, at: number): number {
  const n = s.length;
  if (n <= 128) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[at + i] = c;
    }
    if (i === n) return n;
  }
  return buf.write(s, at, 'utf8');
}

export class ByteWriter {
  private buf = Buffer.allocUnsafe(512);
  private pos = 0;

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Starts a new piece (dropping whatever an encode that threw left behind). */
  reset(): this {
    this.pos = 0;
    return this;
  }

  u8(v: number): this {
    this.room(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    this.room(2);
    this.pos = this.buf.writeUInt16LE(v, this.pos);
    return this;
  }

  u32(v: number): this {
    this.room(4);
    this.pos = this.buf.writeUInt32LE(v, this.pos);
    return this;
  }

  f64(v: number): this {
    this.room(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
    return this;
  }

  str(s: string): this {
    // At most 3 bytes per UTF-16 code unit.
    this.room(4 + s.length * 3);
    const n = writeUtf8(this.buf, s, this.pos + 4);
    this.buf.writeUInt32LE(n, this.pos);
    this.pos += 4 + n;
    return this;
  }

  /** The bytes written since the last finish(), as a buffer of their own; starts over. */
  finish(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    this.pos = 0;
    return out;
  }
}

/** Thrown when an entry's bytes run out before its fields do. */
export class ShortEntryError extends RangeError {
  constructor() {
    super('index entry is shorter than its fields');
  }
}

/** Strings up to this many bytes are looked up among the recent ones before being decoded. */
const CACHED_BYTES = 64;
/** Recent strings kept per kind of field. */
const WAYS = 4;
/** Kinds of field with recent strings. */
export const KINDS = 8;

export class ByteReader {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  /**
   * Recently decoded strings, per kind of field (`str(kind)`, kind < KINDS): WAYS slots each of
   * offset in `buf`, byte length, string; replaced round robin. Index entries repeat channels,
   * events and targets in every record: comparing a few bytes is cheaper than decoding (and later
   * collecting) another copy.
   */
  private recentAt = new Float64Array(KINDS * WAYS);
  private recentLength = new Int32Array(KINDS * WAYS).fill(-1);
  private recentString: string[] = new Array<string>(KINDS * WAYS).fill('');
  private nextWay = new Uint8Array(KINDS);

  /** Points the reader at buf[start, end). */
  at(buf: Buffer, start = 0, end = buf.length): this {
    if (buf !== this.buf) {
      this.buf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      this.recentLength.fill(-1);
    }
    this.pos = start;
    this.end = end;
    return this;
  }

  private take(n: number): number {
    const p = this.pos;
    if (p + n > this.end) throw new ShortEntryError();
    this.pos = p + n;
    return p;
  }

  u8(): number {
    return this.buf[this.take(1)]!;
  }

  u16(): number {
    return this.view.getUint16(this.take(2), true);
  }

  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }

  f64(): number {
    return this.view.getFloat64(this.take(8), true);
  }

  /** A string's UTF-8 bytes (a view into the buffer, good while it is). */
  utf8(): Buffer {
    const n = this.u32();
    const p = this.take(n);
    return this.buf.subarray(p, p + n);
  }

  /** A string; `kind` (a small number per field, < KINDS) makes it reuse a recent equal string of that field. */
  str(kind = -1): string {
    const n = this.u32();
    const p = this.take(n);
    if (kind < 0 || n > CACHED_BYTES) return this.buf.toString('utf8', p, p + n);
    const first = kind * WAYS;
    for (let w = first; w < first + WAYS; w++) if (this.recentLength[w] === n && this.same(this.recentAt[w]!, p, n)) return this.recentString[w]!;
    const s = this.buf.toString('utf8', p, p + n);
    const w = first + this.nextWay[kind]!;
    this.nextWay[kind] = (this.nextWay[kind]! + 1) % WAYS;
    this.recentAt[w] = p;
    this.recentLength[w] = n;
    this.recentString[w] = s;
    return s;
  }

  private same(a: number, b: number, n: number): boolean {
    const buf = this.buf;
    for (let i = 0; i < n; i++) if (buf[a + i] !== buf[b + i]) return false;
    return true;
  }
}
