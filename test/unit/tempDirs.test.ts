// The temporary folders of the unit tests are removed (test/unit/tempDirs.ts, a root hook plugin):
// a folder made in a test after that test, one made in before() only when the run ends.
import { strict as assert } from 'node:assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from './tempDirs';

describe('temporary folders of the unit tests', () => {
  let shared = '';
  let own = '';
  before(() => {
    shared = makeTempDir('sh-tempdirs-shared-');
  });

  it('a test makes a folder and writes in it', () => {
    own = makeTempDir('sh-tempdirs-own-');
    writeFileSync(join(own, 'f'), 'x');
    assert.ok(existsSync(own));
  });

  it("the previous test's folder is gone; the one made in before() is still there", () => {
    assert.ok(own !== '' && !existsSync(own), own);
    assert.ok(existsSync(shared), 'a folder of before() serves every test of the suite');
  });
});
