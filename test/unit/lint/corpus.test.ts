// Golden tests over the starter-workflows corpus: every file's findings (.out) and fixed text
// (.fixed.yml where the fix changes the file), as reviewed by hand in test/fixtures/corpus/expected.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { applyFixes, lintText } from '../../../src/core/lint';
import { readFileSync } from 'node:fs';
import { UPDATE, checkGolden } from './golden';

export const CORPUS = resolve(__dirname, '../../fixtures/corpus/starter-workflows');
const EXPECTED = resolve(__dirname, '../../fixtures/corpus/expected');

export function corpusFiles(dir = CORPUS): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...corpusFiles(p));
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

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
