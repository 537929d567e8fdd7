// Golden tests over test/fixtures/lint, laid out as actionlint's testdata:
//   ok/<case>.yml   a workflow the linter has nothing to say about: no finding, the fix changes nothing.
//   err/<case>.yml  a workflow with findings → err/<case>.out (+ err/<case>.fixed.yml, and
//                   err/<case>.pinned.yml where there are suggestions), optional
//                   err/<case>.config.json in the .service-hooks.json format for extra rules.
// To add a case, drop the .yml in ok/ or err/ and (for err/) run with UPDATE_GOLDEN=1, then review.
// ok/starter-workflows/ and err/starter-workflows/ hold real workflows copied from the
// starter-workflows corpus (MIT, their LICENSE beside them): the ok/ ones must stay clean as the
// rules grow (a golden could be re-recorded; "no finding" cannot).
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig } from '../../../src/core/lint/config';
import { applyFixes, BUILTIN_RULES, lintText, NOTE_RULES } from '../../../src/core/lint';
import { checkGolden, UPDATE } from './golden';

const OK_DIR = resolve(__dirname, '../../fixtures/lint/ok');
const ERR_DIR = resolve(__dirname, '../../fixtures/lint/err');

/** The cases under `dir`, as paths relative to it (subfolders included). */
const sources = (dir: string, under = ''): string[] =>
  readdirSync(join(dir, under)).flatMap((f) => {
    const rel = under ? `${under}/${f}` : f;
    if (statSync(join(dir, rel)).isDirectory()) return sources(dir, rel);
    return /\.ya?ml$/.test(f) && !/\.(fixed|pinned)\.ya?ml$/.test(f) ? [rel] : [];
  });

describe('lint golden files (test/fixtures/lint/ok)', () => {
  const cases = sources(OK_DIR);
  it('holds real workflows that must stay clean, with their licence', () => {
    assert.ok(cases.filter((c) => c.startsWith('starter-workflows/')).length >= 30, cases.join(', '));
    assert.ok(existsSync(join(OK_DIR, 'starter-workflows', 'LICENSE')));
  });
  for (const file of cases) {
    it(file.replace(/\.ya?ml$/, ''), () => {
      const text = readFileSync(join(OK_DIR, file), 'utf8');
      const findings = lintText(text);
      assert.deepEqual(findings, [], `${file} is in ok/ but has findings: move it to err/`);
      assert.equal(applyFixes(text, findings), text);
    });
  }
});

describe('lint golden files (test/fixtures/lint/err)', () => {
  const cases = sources(ERR_DIR);
  const outOf = (c: string) => join(ERR_DIR, c.replace(/\.ya?ml$/, '.out'));
  it('has a case for every rule of the rule table', () => {
    const outs = cases.map((c) => (existsSync(outOf(c)) ? readFileSync(outOf(c), 'utf8') : '')).join('');
    for (const rule of [...BUILTIN_RULES, ...NOTE_RULES].map((r) => r.id)) {
      if (!outs.includes(`[${rule}]`)) throw new Error(`no golden case reports ${rule}`);
    }
  });
  for (const file of cases) {
    const base = file.replace(/\.ya?ml$/, '');
    it(base, () => {
      const configPath = join(ERR_DIR, `${base}.config.json`);
      const rules = existsSync(configPath) ? parseConfig(JSON.parse(readFileSync(configPath, 'utf8')), configPath).rules : [];
      checkGolden(join(ERR_DIR, file), file, outOf(file), join(ERR_DIR, `${base}.fixed.yml`), { rules });
      if (!UPDATE) assert.notEqual(readFileSync(outOf(file), 'utf8'), '', `${file} is in err/ but has no finding: move it to ok/`);
    });
  }
});
