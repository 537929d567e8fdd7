// Golden tests over test/fixtures/lint: <case>.yml → <case>.out (+ <case>.fixed.yml), optional
// <case>.config.json in the .service-hooks.json format for extra rules.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig } from '../../../relay/lint/config';
import { checkGolden } from './golden';

const DIR = resolve(__dirname, '../../fixtures/lint');

describe('lint golden files (test/fixtures/lint)', () => {
  const cases = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f) && !/\.fixed\.ya?ml$/.test(f));
  it('has a case for every rule', () => {
    const outs = cases.map((c) => (existsSync(join(DIR, c.replace(/\.ya?ml$/, '.out'))) ? readFileSync(join(DIR, c.replace(/\.ya?ml$/, '.out')), 'utf8') : '')).join('');
    for (const rule of ['token-secret', 'token-env', 'context-event', 'context-repository', 'action-script', 'action-codeql', 'yaml-syntax', 'context-whole', 'context-dynamic', 'action-pinned-sha']) {
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
