// The index snapshot's object image (relay/server/base/objectImage.ts): a graph written and read
// back through the snapshot file keeps its classes, shared objects, cycles and typed-array views of
// one buffer; one whose classes are laid out otherwise than the reader's build is refused.
import { strict as assert } from 'node:assert';
import { ImageError, ImageWriter } from '../../../../../relay/server/base/imageParts';
import { loadObject, saveObject } from '../../../../../relay/server/base/objectImage';
import { nodeFs } from '../../../../../relay/server/journal/journalFs';
import { openSnapshot, writeSnapshot } from '../../../../../relay/server/journal/snapshotFile';
import { tempDir } from '../../support/helpers';

class Leaf {
  constructor(
    public name: string,
    public values: Float64Array,
  ) {}
  total(): number {
    return this.values.reduce((a, b) => a + b, 0);
  }
}

class Root {
  shared = new Leaf('a', new Float64Array(0));
  again = this.shared;
  bytes = Buffer.alloc(0);
  words = new Uint16Array(0);
  big = new Uint8Array(0);
  map = new Map<number, Leaf>();
  set = new Set<string>();
  list: (number | undefined | null | string)[] = [];
  self: Root | undefined;
}

class Other {
  shared = new Leaf('a', new Float64Array(0));
  renamed = 0;
}

async function roundTrip<T extends object>(value: object, template: T): Promise<T> {
  const w = new ImageWriter();
  saveObject(w, value);
  const dir = tempDir();
  const head = { at: { segment: 1, offset: 0 }, fingerprint: { segment: 1, offset: 0, length: 0, crc: 0, type: 1 } };
  await writeSnapshot(nodeFs, dir, head, w.parts);
  const opened = await openSnapshot(nodeFs, dir);
  assert.ok(opened && typeof opened !== 'string', String(opened));
  try {
    return await loadObject(opened.reader, template);
  } finally {
    await opened.close();
  }
}

describe('object image (index snapshot)', () => {
  it('keeps classes, shared objects, cycles, views of one buffer, maps, sets and odd numbers', async () => {
    const root = new Root();
    const buffer = new ArrayBuffer(64);
    root.shared = new Leaf('x', new Float64Array(buffer, 0, 4));
    root.again = root.shared;
    root.words = new Uint16Array(buffer, 32, 8);
    root.shared.values.set([1, 2, 3, NaN]);
    root.words.set([7, 8]);
    root.bytes = Buffer.from('héllo');
    root.map.set(3, root.shared).set(4, new Leaf('y', new Float64Array([Infinity])));
    root.set.add('s');
    root.list = [1, undefined, null, 'z', -Infinity];
    root.self = root;
    root.big = new Uint8Array(3 * 4096 + 10); // zero pages between bytes that are not
    root.big[5] = 1;
    root.big[3 * 4096 + 9] = 2;
    const back = await roundTrip(root, new Root());
    assert.ok(back instanceof Root && back.shared instanceof Leaf);
    assert.equal(back.self, back, 'a cycle stays one');
    assert.equal(back.again, back.shared, 'a shared object stays shared');
    assert.equal(back.words.buffer, back.shared.values.buffer, 'views of one buffer stay views of one buffer');
    assert.equal(back.shared.total(), NaN);
    assert.deepEqual([...back.shared.values.subarray(0, 3)], [1, 2, 3]);
    assert.deepEqual([...back.words.subarray(0, 2)], [7, 8]);
    assert.ok(Buffer.isBuffer(back.bytes) && back.bytes.toString() === 'héllo');
    assert.equal(back.map.get(4)!.values[0], Infinity);
    assert.equal(back.map.get(3), back.shared);
    assert.deepEqual([...back.set], ['s']);
    assert.equal(back.big.length, 3 * 4096 + 10);
    assert.deepEqual([back.big[5], back.big[4096 + 7], back.big[3 * 4096 + 9], back.big.reduce((a, b) => a + b, 0)], [1, 0, 2, 3]);
    assert.deepEqual(back.list, [1, undefined, null, 'z', -Infinity]);
  });

  it('refuses an image whose classes are laid out otherwise than the reader’s', async () => {
    await assert.rejects(
      roundTrip(new Other(), new Root()),
      (err: Error) => err instanceof ImageError && /no class of this build has the fields renamed,shared/.test(err.message),
    );
    const leafless = new Root();
    await assert.rejects(roundTrip(Object.assign(new Root(), { extra: new Other() }), leafless), (err: Error) => err instanceof ImageError);
  });

  it('refuses to write a function', () => {
    assert.throws(() => saveObject(new ImageWriter(), { f: () => 1 }), ImageError);
  });
});
