// The one atomic write (src/core/writeFileAtomic): new content under the given mode, whole; no
// temporary file left behind, also when the rename fails; the old content kept then.
import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, writeFileAtomicSync } from '../../../src/core/writeFileAtomic';
import { tempDir } from '../relay/support/helpers';

for (const [name, write] of [
  ['writeFileAtomic', writeFileAtomic],
  ['writeFileAtomicSync', async (...a: Parameters<typeof writeFileAtomicSync>) => writeFileAtomicSync(...a)],
] as const) {
  describe(name, () => {
    it('replaces the file whole, 0600 by default or the mode given, and leaves no temporary file', async () => {
      const dir = tempDir();
      const file = join(dir, 'state.json');
      writeFileSync(file, 'old', { mode: 0o644 });
      await write(file, '{"new":true}\n');
      assert.equal(readFileSync(file, 'utf8'), '{"new":true}\n');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      await write(file, Buffer.from('bytes'), { mode: 0o640 });
      assert.equal(readFileSync(file, 'utf8'), 'bytes');
      assert.equal(statSync(file).mode & 0o777, 0o640);
      assert.deepEqual(readdirSync(dir), ['state.json']);
    });

    it('a failed rename leaves the old content and no temporary file', async () => {
      const dir = tempDir();
      const target = join(dir, 'taken');
      mkdirSync(join(target, 'inside'), { recursive: true }); // a non-empty folder: rename over it fails
      await assert.rejects(
        Promise.resolve().then(() => write(target, 'x')),
        /EISDIR|ENOTEMPTY|EEXIST/,
      );
      assert.deepEqual(readdirSync(dir), ['taken']);
      assert.deepEqual(readdirSync(target), ['inside']);
    });
  });
}
