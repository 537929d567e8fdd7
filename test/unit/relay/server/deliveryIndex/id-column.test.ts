// IdColumn: delivery ids of one hex-and-dashes form packed two digits a byte (the first such id
// sets the form), every other id beside them; each read back as given, through drops and
// compactions, whichever form came first.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { IdColumn } from '../../../../../relay/server/deliveryIndex/idColumn';

/** Ids of many forms: the most of the form `main` makes. */
function ids(n: number, main: (i: number) => string): (string | undefined)[] {
  const other = [
    () => undefined,
    () => '',
    () => `test-${randomUUID()}`,
    () => randomUUID().toUpperCase(),
    () => randomUUID(),
    () => `7f1c2d3e-${String(n).padStart(7, '0')}-4a5b-8c9d-0e1f2a3b4c5d`,
    () => 'abc',
    () => 'é'.repeat(20),
    () => `${'ab'.repeat(40)}`,
    () => '0123456789abcdef0', // odd digit count
  ];
  return Array.from({ length: n }, (_, i) => (i % 9 === 4 ? other[i % other.length]!() : main(i)));
}

function check(values: (string | undefined)[]): void {
  const col = new IdColumn();
  let dropped = 0;
  values.forEach((v, i) => {
    if (v !== undefined && i % 2) col.pushBytes(Buffer.from(v, 'utf8'));
    else col.push(v);
    if (i % 5000 === 4999) {
      col.dropFront(4000);
      dropped += 4000;
    }
  });
  assert.equal(col.size, values.length - dropped);
  for (let k = 0; k < col.size; k++) assert.equal(col.get(k), values[dropped + k], `row ${k}`);
  col.dropFront(col.size);
  assert.equal(col.size, 0);
  col.push('after');
  assert.equal(col.get(0), 'after');
}

describe('IdColumn', () => {
  it('gives back UUIDs and every other id as given, through drops and compactions', () => check(ids(20_000, () => randomUUID())));

  it('packs another hex form when that came first, and keeps UUIDs beside', () =>
    check(ids(20_000, (i) => `7f1c2d3e-${String(i).padStart(7, '0')}-4a5b-8c9d-0e1f2a3b4c5d`)));

  it('gives back ids that come before any id of a packable form', () => check([undefined, 'test-1', 'x', ...ids(3000, () => randomUUID())]));

  it('an odd number of digits, and none packable at all', () => {
    check(ids(6000, (i) => `${i.toString(16).padStart(17, '0')}`));
    check(ids(6000, (i) => `id-${i}`));
  });
});
