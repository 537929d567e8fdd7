// randomToken (src/core/randomToken.ts) never starts with "-" (so `--token <it>` parses), drawing
// again when it would, and keeps the length asked for.
import { strict as assert } from 'node:assert';
import { randomToken } from '../../../src/core/randomToken';

describe('randomToken', () => {
  it('draws again when the base64url text would start with "-" (one draw in 64), so `--token <it>` parses', () => {
    // 0xf8 0x00 0x00 encodes as "-AAA"; 0x04 0x10 0x41 as "BBBB".
    const draws = [Buffer.from([0xf8, 0, 0]), Buffer.from([0xf8, 0, 0]), Buffer.from([0x04, 0x10, 0x41])];
    const asked: number[] = [];
    const token = randomToken(3, (n) => {
      asked.push(n);
      return draws.shift()!;
    });
    assert.equal(token, 'BBBB');
    assert.deepEqual(asked, [3, 3, 3]);
  });

  it('keeps a first draw that does not start with "-", at the length asked for', () => {
    assert.equal(
      randomToken(3, () => Buffer.from([0xfc, 0, 0])),
      '_AAA',
    );
    assert.equal(randomToken(32).length, 43);
  });

  it('never starts with "-" over many real draws', () => {
    for (let i = 0; i < 2000; i++) assert.ok(!randomToken(1).startsWith('-'));
  });
});
