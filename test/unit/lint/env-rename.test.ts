// The env rename's blocking conditions in small single-file cases the golden files do not isolate:
// each workflow here must get token-env warnings and no token-env fix.
import { strict as assert } from 'node:assert';
import { lintText } from '../../../src/core/lint';

function tokenEnv(text: string) {
  const all = lintText(text).filter((f) => f.rule === 'token-env');
  assert.ok(all.length > 0, 'token-env findings');
  return all;
}

function assertBlocked(text: string, why: RegExp): void {
  for (const f of tokenEnv(text)) {
    assert.equal(f.replacement, undefined, `no fix at ${f.line}:${f.column}`);
    assert.equal(f.severity, 'warning');
    assert.match(f.message, why);
  }
}

const head = 'on: push\njobs:\n  a:\n    runs-on: x\n';

describe('lint: env rename blocking', () => {
  it('a `<<` merge of an anchored map into a step env', () => {
    const text = `on: push\nx-env: &e\n  GITHUB_TOKEN: t\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo $GITHUB_TOKEN\n        env:\n          <<: *e\n`;
    assertBlocked(text, /alias `\*e`/);
  });

  it('an aliased key inside an env map', () => {
    const text = `on: push\nx-key: &k GITHUB_TOKEN\njobs:\n  a:\n    runs-on: x\n    env:\n      *k : t\n    steps:\n      - run: echo $GITHUB_TOKEN\n`;
    assertBlocked(text, /alias `\*k`|anchored node `&k`/);
  });

  it('an anchored env key repeated by an alias elsewhere', () => {
    const text = `${head}    env:\n      &k GITHUB_TOKEN : t\n    steps:\n      - run: echo $GITHUB_TOKEN\n      - uses: some/action@v1\n        with:\n          name: *k\n`;
    assertBlocked(text, /anchored node `&k`/);
  });

  it('a job env whose run script calls gh and also names the variable (gh still reads it by name)', () => {
    const text = `${head}    env:\n      GITHUB_TOKEN: t\n    steps:\n      - run: echo "$GITHUB_TOKEN" | gh auth login --with-token\n`;
    assertBlocked(text, /passed to `gh`, called by the run script on line 8/);
  });

  it('a step env whose script names ${GITHUB_TOKEN} for git push and then runs gh', () => {
    const text = `${head}    steps:\n      - env:\n          GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }}\n        run: |\n          git push "https://x-access-token:\${GITHUB_TOKEN}@example.invalid/o/r.git" HEAD\n          gh pr create --fill\n`;
    assertBlocked(text, /passed to `gh`, called by the run script/);
    const secret = lintText(text).filter((f) => f.rule === 'token-secret');
    assert.equal(secret.length, 1);
    assert.equal(secret[0]!.replacement, 'SERVICE_TOKEN');
  });

  it('an alias env map without the name blocks nothing', () => {
    const text = `on: push\nx-env: &e\n  OTHER: t\njobs:\n  a:\n    runs-on: x\n    env: *e\n    steps:\n      - run: echo $GITHUB_TOKEN\n        env:\n          GITHUB_TOKEN: t\n`;
    for (const f of tokenEnv(text)) assert.equal(f.replacement, 'SERVICE_TOKEN');
  });
});

describe('lint: env rename still fixes where nothing outside the file reads the name', () => {
  it('an extra env rule used only by run scripts of its job', () => {
    const text = `${head}    env:\n      NPM_TOKEN: t\n    steps:\n      - run: npm publish --token "$NPM_TOKEN"\n`;
    const found = lintText(text, { rules: [{ kind: 'env', from: 'NPM_TOKEN', to: 'REGISTRY_TOKEN' }] }).filter((f) => f.rule === 'extra-env-1');
    assert.equal(found.length, 2);
    for (const f of found) assert.equal(f.replacement, 'REGISTRY_TOKEN');
  });
});
