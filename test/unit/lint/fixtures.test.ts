// Golden tests over test/fixtures/lint: <case>.yml → <case>.out (+ <case>.fixed.yml), optional
// <case>.config.json in the .service-hooks.json format for extra rules.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig } from '../../../src/core/lint/config';
import { BUILTIN_RULES, NOTE_RULES } from '../../../src/core/lint';
import { checkGolden } from './golden';

const DIR = resolve(__dirname, '../../fixtures/lint');

describe('lint golden files (test/fixtures/lint)', () => {
  const cases = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f) && !/\.(fixed|pinned)\.ya?ml$/.test(f));
  it('has a case for every rule of the rule table', () => {
    const outs = cases.map((c) => (existsSync(join(DIR, c.replace(/\.ya?ml$/, '.out'))) ? readFileSync(join(DIR, c.replace(/\.ya?ml$/, '.out')), 'utf8') : '')).join('');
    for (const rule of [...BUILTIN_RULES, ...NOTE_RULES].map((r) => r.id)) {
      if (!outs.includes(`[${rule}]`)) throw new Error(`no golden case reports ${rule}`);
    }
  });
  for (const file of cases) {
    const base = file.replace(/\.ya?ml$/, '');
    it(base, () => {
      const configPath = join(DIR, `${base}.config.json`);
      const rules = existsSync(configPath) ? parseConfig(JSON.parse(readFileSync(configPath, 'utf8')), configPath).rules : [];
      checkGolden(join(DIR, file), file, join(DIR, `${base}.out`), join(DIR, `${base}.fixed.yml`), { rules });
    });
  }
});
