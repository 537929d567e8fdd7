// Golden tests over the starter-workflows corpus: every file's findings (.out) and fixed text
// (.fixed.yml where the fix changes the file), as reviewed by hand in test/fixtures/corpus/expected.
import { strict as assert } from 'node:assert';
import { existsSync, unlinkSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { applyFixes, lintText } from '../../../src/core/lint';
import { readFileSync } from 'node:fs';
import { CORPUS, UPDATE, checkGolden, corpusFiles } from './golden';

const EXPECTED = resolve(__dirname, '../../fixtures/corpus/expected');

describe('lint corpus (starter-workflows)', () => {
  const files = corpusFiles();
  it('holds the whole corpus and its licence', () => {
    assert.equal(files.length, 175);
    assert.ok(existsSync(join(CORPUS, 'LICENSE')));
  });
  for (const file of files) {
    const rel = relative(CORPUS, file);
    it(rel, () => {
      const base = join(EXPECTED, rel.replace(/\.ya?ml$/, ''));
      const text = readFileSync(file, 'utf8');
      const changes = applyFixes(text, lintText(text)) !== text;
      const fixedPath = `${base}.fixed.yml`;
      if (UPDATE && !changes && existsSync(fixedPath)) unlinkSync(fixedPath);
      checkGolden(file, rel, `${base}.out`, changes || existsSync(fixedPath) ? fixedPath : undefined);
    });
  }
});
