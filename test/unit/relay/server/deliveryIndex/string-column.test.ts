// StringColumn: the compact index's delivery ids as UTF-8 bytes, appended at the end and dropped
// from the front (its bytes reclaimed), read back as the strings given.
import { strict as assert } from 'node:assert';
import { StringColumn } from '../../../../../relay/server/deliveryIndex/stringColumn';

describe('StringColumn', () => {
  it('gives back strings, unicode and empty ones, undefined, and bytes pushed as such, through drops and compactions', () => {
    const col = new StringColumn();
    const value = (i: number) => (i % 7 === 0 ? undefined : i % 11 === 0 ? '' : `id-${i}-${'é🔑'.repeat(i % 3)}`);
    let dropped = 0;
    for (let i = 0; i < 20_000; i++) {
      const v = value(i);
      if (v !== undefined && i % 2) col.pushBytes(Buffer.from(v, 'utf8'));
      else col.push(v);
      if (i % 5000 === 4999) {
        col.dropFront(4000);
        dropped += 4000;
      }
    }
    assert.equal(col.size, 20_000 - dropped);
    for (let k = 0; k < col.size; k++) assert.equal(col.get(k), value(dropped + k), `row ${k}`);
    col.dropFront(col.size);
    assert.equal(col.size, 0);
    col.push('after');
    assert.equal(col.get(0), 'after');
  });
});
