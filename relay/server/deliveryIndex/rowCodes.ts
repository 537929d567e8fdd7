// A one-target row's attempt count, last status and held attempt's status (./rowAttempts.ts), in
// one byte: the triples rows have are few (1 attempt, 200, 200; none yet; 2, 200, 502; ...), each
// given a code when first seen. Once OVER - 1 are taken, a row with a new triple keeps it by seq
// in a map beside (its column byte OVER). Statuses as u16, as the columns always held them.
import type { Columns } from './indexColumns';

/** The code of a triple kept in the map. */
export const OVER = 255;

export interface Triple {
  attempts: number;
  /** The state's last status; 0 for none. */
  last: number;
  /** The status of the attempt held in the row; 0 for none. */
  held: number;
}

const U16 = 0x10000;

export class RowCodes {
  private readonly codes = new Map<number, number>([[0, 0]]);
  private readonly triples: Triple[] = [{ attempts: 0, last: 0, held: 0 }];
  private readonly over = new Map<number, Triple>();

  /** Row `i`'s (`seq`) triple. */
  get(c: Columns, i: number, seq: number): Triple {
    const k = c.code[i]!;
    return k === OVER ? this.over.get(seq)! : this.triples[k]!;
  }

  /** Sets row `i`'s (`seq`) triple (no object made unless it is new or kept in the map). */
  set(c: Columns, i: number, seq: number, attempts: number, last: number, held: number): void {
    last &= 0xffff;
    held &= 0xffff;
    const k = attempts < U16 ? this.codeOf(attempts, last, held) : OVER;
    c.code[i] = k;
    if (k === OVER) this.over.set(seq, { attempts, last, held });
    else if (this.over.size > 0) this.over.delete(seq);
  }

  private codeOf(attempts: number, last: number, held: number): number {
    const key = (attempts * U16 + last) * U16 + held;
    let k = this.codes.get(key);
    if (k === undefined) {
      if (this.triples.length >= OVER) return OVER;
      k = this.triples.length;
      this.codes.set(key, k);
      this.triples.push({ attempts, last, held });
    }
    return k;
  }

  /** Forgets row `seq`. */
  drop(seq: number): void {
    if (this.over.size > 0) this.over.delete(seq);
  }
}
