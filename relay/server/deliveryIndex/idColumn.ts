// The delivery ids of the index's rows. The service's ids are UUIDs: ids of one form (the first
// id of 16 to 64 lowercase hex digits and dashes sets it: its length and where its dashes are)
// are kept as their hex digits, two to a byte, in one typed array: a UUID in 16 bytes (a third
// of its UTF-8, and no start and length), given back as the same text. Any other id (a test
// send's `test-<uuid>`, uppercase, another form, none) goes to a StringColumn beside, found by
// its row's ordinal. Rows are appended at the end and dropped from the front, as in a StringColumn.
import { StringColumn } from './stringColumn';

const MIN_DIGITS = 16;
const MAX_LENGTH = 64;
const DASH = 0x2d;
const HEX = '0123456789abcdef';
const HEX_CODES = Uint8Array.from(HEX, (c) => c.charCodeAt(0));
/** Where an id is spelled out before it is made a string. */
const scratch = Buffer.alloc(MAX_LENGTH);
/** Hex digit values by char code (lowercase only), -1 for any other. */
const DIGIT = new Int8Array(256).fill(-1);
for (let d = 0; d < 16; d++) DIGIT[HEX.charCodeAt(d)] = d;

/** The form of the packed ids: their length and where their dashes are (every other char a hex digit). */
class IdForm {
  readonly width: number;
  /** Where the digits are, in order (an odd count padded with the last one's place, its nibble 0). */
  private readonly digitAt: Uint8Array;
  private readonly dashAt: Uint8Array;
  private readonly odd: boolean;

  constructor(
    readonly length: number,
    /** 1 where a dash is. */
    dashes: Uint8Array,
  ) {
    const digits: number[] = [];
    const dashAt: number[] = [];
    dashes.forEach((d, i) => (d ? dashAt : digits).push(i));
    this.width = (digits.length + 1) >> 1;
    this.odd = digits.length % 2 === 1;
    if (this.odd) digits.push(digits[digits.length - 1]!);
    this.digitAt = Uint8Array.from(digits);
    this.dashAt = Uint8Array.from(dashAt);
  }

  /** The form of `id` (UTF-8 bytes) if it may set one. */
  static of(id: Uint8Array): IdForm | undefined {
    const n = id.length;
    if (n > MAX_LENGTH) return undefined;
    const dashes = new Uint8Array(n);
    let digits = 0;
    for (let i = 0; i < n; i++) {
      if (id[i] === DASH) dashes[i] = 1;
      else if (DIGIT[id[i]!]! < 0) return undefined;
      else digits++;
    }
    return digits >= MIN_DIGITS ? new IdForm(n, dashes) : undefined;
  }

  /** Packs `id` (UTF-8 bytes) into `out` at `to`; false (out partly written) if it is not of this form. */
  pack(id: Uint8Array, out: Uint8Array, to: number): boolean {
    if (id.length !== this.length) return false;
    for (let k = 0; k < this.dashAt.length; k++) if (id[this.dashAt[k]!] !== DASH) return false;
    const at = this.digitAt;
    for (let j = 0; j < this.width; j++) {
      const hi = DIGIT[id[at[2 * j]!]!]!;
      const lo = DIGIT[id[at[2 * j + 1]!]!]!;
      if ((hi | lo) < 0) return false;
      out[to + j] = (hi << 4) | lo;
    }
    if (this.odd) out[to + this.width - 1]! &= 0xf0;
    return true;
  }

  /** The same from a string (the same loops over its char codes: a copy to bytes first cost more than the packing). */
  packString(id: string, out: Uint8Array, to: number): boolean {
    if (id.length !== this.length) return false;
    for (let k = 0; k < this.dashAt.length; k++) if (id.charCodeAt(this.dashAt[k]!) !== DASH) return false;
    const at = this.digitAt;
    for (let j = 0; j < this.width; j++) {
      const h = id.charCodeAt(at[2 * j]!);
      const l = id.charCodeAt(at[2 * j + 1]!);
      const hi = h < 256 ? DIGIT[h]! : -1;
      const lo = l < 256 ? DIGIT[l]! : -1;
      if ((hi | lo) < 0) return false;
      out[to + j] = (hi << 4) | lo;
    }
    if (this.odd) out[to + this.width - 1]! &= 0xf0;
    return true;
  }

  /** The id packed at `at`: its chars written to a scratch buffer, made a string once (a string built char by char made 36 and their garbage). */
  unpack(packed: Uint8Array, at: number): string {
    const out = scratch;
    for (let k = 0; k < this.dashAt.length; k++) out[this.dashAt[k]!] = DASH;
    const places = this.digitAt;
    for (let j = 0; j < this.width; j++) {
      const byte = packed[at + j]!;
      out[places[2 * j]!] = HEX_CODES[byte >> 4]!;
      out[places[2 * j + 1]!] = HEX_CODES[byte & 15]!; // (an odd count: the last place written twice, high nibble last)
    }
    if (this.odd) out[places[places.length - 1]!] = HEX_CODES[packed[at + this.width - 1]! >> 4]!;
    return out.toString('latin1', 0, this.length);
  }
}

export class IdColumn {
  /** An instance of each class a column creates only once an id came (an index snapshot must know them: ../base/objectImage.ts). */
  static imageSamples(): object[] {
    return [IdForm.of(HEX_CODES)!];
  }

  /** The packed ids' form, once an id set it. */
  private form: IdForm | undefined;
  /** form.width bytes per row: row with ordinal `o` at (o - physical) * width. */
  private packed = new Uint8Array(0);
  /** The ordinal of the first row in `packed`. */
  private physical = 0;
  /** Ordinals [first, next) are live (an ordinal counts every row ever pushed). */
  private first = 0;
  private next = 0;
  /** The ordinals of the rows kept in `others`, ascending; [otherFirst, otherEnd) are live. */
  private otherOrds = new Float64Array(0);
  private otherFirst = 0;
  private otherEnd = 0;
  private readonly others = new StringColumn();

  get size(): number {
    return this.next - this.first;
  }

  /** Appends a row: an id, or undefined. */
  push(value: string | undefined): void {
    if (value === undefined || !this.pack(value)) {
      this.addOther();
      this.others.push(value);
    }
    this.next++;
  }

  /** Appends a row from UTF-8 bytes (from an index file: no string made). */
  pushBytes(utf8: Uint8Array): void {
    if (!this.pack(utf8)) {
      this.addOther();
      this.others.pushBytes(utf8);
    }
    this.next++;
  }

  /** Packs the next row's id (a string or its UTF-8) if it has the form (or sets it). */
  private pack(id: string | Uint8Array): boolean {
    if (!this.form) {
      this.form = IdForm.of(typeof id === 'string' ? Buffer.from(id, 'utf8') : id);
      if (!this.form) return false;
      this.physical = this.next;
      this.packed = new Uint8Array(1024 * this.form.width);
    }
    const w = this.form.width;
    if ((this.next - this.physical + 1) * w > this.packed.length) this.resizePacked(Math.max(1024, this.size * 2));
    const at = (this.next - this.physical) * w;
    return typeof id === 'string' ? this.form.packString(id, this.packed, at) : this.form.pack(id, this.packed, at);
  }

  /** Row k (0 = the first live row). */
  get(k: number): string | undefined {
    const ord = this.first + k;
    const j = this.otherEnd > this.otherFirst ? this.otherIndex(ord) : -1;
    if (j >= 0) return this.others.get(j - this.otherFirst);
    return this.form!.unpack(this.packed, (ord - this.physical) * this.form!.width);
  }

  /** Drops the first `n` live rows (their bytes are reclaimed once they are most of the buffer). */
  dropFront(n: number): void {
    this.first = Math.min(this.next, this.first + n);
    let gone = 0;
    while (this.otherFirst < this.otherEnd && this.otherOrds[this.otherFirst]! < this.first) {
      this.otherFirst++;
      gone++;
    }
    if (gone > 0) this.others.dropFront(gone);
    if (this.form && this.first - this.physical > 4096 && (this.first - this.physical) * 2 > this.next - this.physical)
      this.resizePacked(Math.max(1024, this.size * 2));
    if (this.otherFirst > 4096 && this.otherFirst * 2 > this.otherEnd) this.resizeOthers(Math.max(1024, (this.otherEnd - this.otherFirst) * 2));
  }

  private addOther(): void {
    if (this.otherEnd === this.otherOrds.length) this.resizeOthers(Math.max(1024, (this.otherEnd - this.otherFirst) * 2));
    this.otherOrds[this.otherEnd++] = this.next;
  }

  /** The index in otherOrds of `ord`, or -1. */
  private otherIndex(ord: number): number {
    let lo = this.otherFirst;
    let hi = this.otherEnd;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.otherOrds[mid]! < ord) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.otherEnd && this.otherOrds[lo] === ord ? lo : -1;
  }

  /** Moves the live rows' bytes to the front of a fresh array of `capacity` rows. */
  private resizePacked(capacity: number): void {
    const w = this.form!.width;
    const from = Math.max(this.first, this.physical); // (rows before the form was set have no bytes)
    const fresh = new Uint8Array(capacity * w);
    fresh.set(this.packed.subarray((from - this.physical) * w, (this.next - this.physical) * w));
    this.packed = fresh;
    this.physical = from;
  }

  private resizeOthers(capacity: number): void {
    const fresh = new Float64Array(capacity);
    fresh.set(this.otherOrds.subarray(this.otherFirst, this.otherEnd));
    this.otherOrds = fresh;
    this.otherEnd -= this.otherFirst;
    this.otherFirst = 0;
  }
}
