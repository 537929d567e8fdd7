// Little-endian byte writing and reading for the segment index's binary entries: fixed-width
// numbers (u8, u16, u32, f64) and strings as a u32 byte length + UTF-8. The writer encodes into
// one scratch buffer and hands out an exact-size copy; the reader walks a range of a buffer
// in place (the journal points one reader at each record in turn: no object per record).

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
    const n = this.buf.write(s, this.pos + 4, 'utf8');
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

export class ByteReader {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  end = 0;

  /** Points the reader at buf[start, end). */
  at(buf: Buffer, start = 0, end = buf.length): this {
    this.buf = buf;
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
    return this.buf.readUInt16LE(this.take(2));
  }

  u32(): number {
    return this.buf.readUInt32LE(this.take(4));
  }

  f64(): number {
    return this.buf.readDoubleLE(this.take(8));
  }

  str(): string {
    const n = this.u32();
    const p = this.take(n);
    return this.buf.toString('utf8', p, p + n);
  }
}
