// The plain-JavaScript scripts are type-checked (`npm run check-types` runs tsconfig.scripts.json,
// which checks the files that opt in with // @ts-check): every one of them must opt in.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

describe('scripts', () => {
  it('every scripts/*.mjs and scripts/lib/*.mjs starts with // @ts-check', () => {
    const files = ['scripts', 'scripts/lib'].flatMap((d) =>
      readdirSync(join(ROOT, d))
        .filter((n) => n.endsWith('.mjs'))
        .map((n) => `${d}/${n}`),
    );
    assert.ok(files.length >= 5, files.join(', '));
    const missing = files.filter((f) => !/^(#![^\n]*\n)?\/\/ @ts-check\n/.test(readFileSync(join(ROOT, f), 'utf8')));
    assert.deepEqual(missing, []);
  });
});
