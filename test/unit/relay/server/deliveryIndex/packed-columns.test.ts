// The index's packed columns give back every value set, exactly: RunColumn (seqs one apart,
// segments repeated; gaps and jumps start new runs) with its lowerBound, and RelColumn (offsets
// from a base in 16 or 32 bits: re-based when a value leaves the range, widened to f64 when the
// live rows cannot share one base or a value is not an integer), through moves to new columns.
import { strict as assert } from 'node:assert';
import { RelColumn, RunColumn } from '../../../../../relay/server/deliveryIndex/packedColumns';

function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

describe('packed columns', () => {
  it('RunColumn: values and lower bounds as set, through gaps, jumps and moves', () => {
    const rand = prng(7);
    for (const step of [0, 1] as const) {
      let col = new RunColumn(step);
      let values: number[] = [];
      let head = 0;
      let v = 5;
      for (let n = 0; n < 20_000; n++) {
        const r = rand();
        v += step === 0 ? (r < 0.99 ? 0 : 1 + Math.floor(rand() * 3)) : r < 0.9 ? 1 : r < 0.99 ? 2 + Math.floor(rand() * 9) : 2 ** 40;
        col.push(values.length, v);
        values.push(v);
        if (rand() < 0.002) head += Math.floor(rand() * (values.length - head));
        if (rand() < 0.001) {
          col = col.resized(0, head, values.length);
          values = values.slice(head);
          head = 0;
        }
      }
      for (let i = head; i < values.length; i++) assert.equal(col.get(i), values[i], `step ${step} row ${i}`);
      if (step === 0) continue;
      for (let k = 0; k < 2000; k++) {
        const probe = values[head + Math.floor(rand() * (values.length - head))]! + Math.floor(rand() * 3) - 1;
        const want = values.findIndex((x, i) => i >= head && x >= probe);
        assert.equal(col.lowerBound(probe, head, values.length), want < 0 ? values.length : want, `lower bound of ${probe}`);
      }
    }
  });

  it('RelColumn: re-based while the live rows fit, widened when they cannot, exact throughout', () => {
    const rand = prng(11);
    const cases: { bits: 16 | 32; fixed: boolean; next: (prev: number, n: number) => number }[] = [
      { bits: 32, fixed: false, next: (p, n) => (n === 15_000 ? p + 0.5 : n % 4000 === 3999 ? p + 3e9 : p + Math.floor(rand() * 5000) - 100) },
      { bits: 32, fixed: true, next: (p, n) => (n === 12_000 ? 2 ** 33 : (p + Math.floor(rand() * 4000)) % 2 ** 31) },
      { bits: 16, fixed: true, next: (_p, n) => (n < 10_000 ? n % 500 : n) },
    ];
    for (const { bits, fixed, next } of cases) {
      let col = new RelColumn(bits, fixed, bits === 16 ? new Uint16Array(1 << 16) : new Uint32Array(1 << 16));
      let values: number[] = [];
      let head = 0;
      let v = 1.7e12;
      for (let n = 0; n < 20_000; n++) {
        v = next(v, n);
        col.set(values.length, v, head);
        values.push(v);
        if (rand() < 0.001) head = values.length - Math.floor(rand() * 50);
        if (n % 5000 === 4999) {
          col = col.resized(1 << 16, head, values.length, bits === 16 ? new Uint16Array(1 << 16) : new Uint32Array(1 << 16));
          values = values.slice(head);
          head = 0;
        }
        const i = head + Math.floor(rand() * (values.length - head));
        assert.equal(col.get(i), values[i], `${bits} bits${fixed ? ', base 0' : ''}: row ${i} at ${n}`);
      }
      for (let i = head; i < values.length; i++) assert.equal(col.get(i), values[i]);
    }
  });
});
