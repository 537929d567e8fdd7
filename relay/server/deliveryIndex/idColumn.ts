// The delivery ids of the index's rows. The service's ids are UUIDs: one written as 36 lowercase
// characters is kept as its 16 bytes in one typed array (a third of its UTF-8, and no start and
// length), and given back as the same text. Any other id (a test send's `test-<uuid>`, an
// uppercase or other form, none) goes to a StringColumn beside, found by its row's ordinal.
// Rows are appended at the end and dropped from the front, as in a StringColumn.
import { StringColumn } from './stringColumn';

const UUID_LENGTH = 36;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Hex digit values by char code (lowercase only), -1 for any other. */
const DIGIT = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) DIGIT[d.toString(16).charCodeAt(0)] = d;
const DASH = 0x2d;

function isDash(at: number): boolean {
  return at === 8 || at === 13 || at === 18 || at === 23;
}

/** Writes the 16 bytes of a lowercase UUID read through `code` into `out` at `to`; false (out partly written) if it is not one. */
function parseUuid(code: (at: number) => number, out: Uint8Array, to: number): boolean {
  let b = 0;
  for (let at = 0; at < UUID_LENGTH; at++) {
    const c = code(at);
    if (isDash(at)) {
      if (c !== DASH) return false;
      continue;
    }
    const d = c < 128 ? DIGIT[c]! : -1;
    if (d < 0) return false;
    if (b % 2 === 0) out[to + (b >> 1)] = d << 4;
    else out[to + (b >> 1)]! |= d;
    b++;
  }
  return true;
}

export class IdColumn {
  /** 16 bytes per row: row with ordinal `o` at (o - physical) * 16. */
  private uuids = new Uint8Array(0);
  /** The ordinal of the first row in `uuids`. */
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
    const at = this.slot();
    if (value === undefined || value.length !== UUID_LENGTH || !parseUuid((i) => value.charCodeAt(i), this.uuids, at)) {
      this.addOther();
      this.others.push(value);
    }
    this.next++;
  }

  /** Appends a row from UTF-8 bytes (from an index file: no string made). */
  pushBytes(utf8: Uint8Array): void {
    const at = this.slot();
    if (utf8.length !== UUID_LENGTH || !parseUuid((i) => utf8[i]!, this.uuids, at)) {
      this.addOther();
      this.others.pushBytes(utf8);
    }
    this.next++;
  }

  /** Row k (0 = the first live row). */
  get(k: number): string | undefined {
    const ord = this.first + k;
    const j = this.otherEnd > this.otherFirst ? this.otherIndex(ord) : -1;
    if (j >= 0) return this.others.get(j - this.otherFirst);
    const at = (ord - this.physical) * 16;
    const u = this.uuids;
    let s = '';
    for (let b = 0; b < 16; b++) {
      if (b === 4 || b === 6 || b === 8 || b === 10) s += '-';
      s += HEX[u[at + b]!];
    }
    return s;
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
    if (this.first - this.physical > 4096 && (this.first - this.physical) * 2 > this.next - this.physical) this.resizeUuids(Math.max(1024, this.size * 2));
    if (this.otherFirst > 4096 && this.otherFirst * 2 > this.otherEnd) this.resizeOthers(Math.max(1024, (this.otherEnd - this.otherFirst) * 2));
  }

  /** The byte offset of the next row's 16 bytes (room made). */
  private slot(): number {
    if ((this.next - this.physical) * 16 === this.uuids.length) this.resizeUuids(Math.max(1024, this.size * 2));
    return (this.next - this.physical) * 16;
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
  private resizeUuids(capacity: number): void {
    const fresh = new Uint8Array(capacity * 16);
    fresh.set(this.uuids.subarray((this.first - this.physical) * 16, (this.next - this.physical) * 16));
    this.uuids = fresh;
    this.physical = this.first;
  }

  private resizeOthers(capacity: number): void {
    const fresh = new Float64Array(capacity);
    fresh.set(this.otherOrds.subarray(this.otherFirst, this.otherEnd));
    this.otherOrds = fresh;
    this.otherEnd -= this.otherFirst;
    this.otherFirst = 0;
  }
}
