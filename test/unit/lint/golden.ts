// Golden-file helpers shared by the fixture and corpus tests: actionlint-style `.out` lines (a
// finding's suggestion on an indented line below it), `.fixed.yml` files (--fix) and, where there
// are suggestions, `.pinned.yml` files (--fix-pinned); regenerated with UPDATE_GOLDEN=1 (then
// reviewed by hand before committing).
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { applyFixes, lintText, type Finding, type LintOptions } from '../../../src/core/lint';
import { parses } from '../../../src/core/lint/fix';

export const UPDATE = process.env.UPDATE_GOLDEN === '1';

export function formatOut(name: string, findings: readonly Finding[]): string {
  return findings
    .map(
      (f) =>
        `${name}:${f.line}:${f.column}: ${f.severity} ${f.message} [${f.rule}]\n${f.suggestion ? `  suggestion: ${f.suggestion.title} → ${f.suggestion.replacement}${f.suggestion.length !== undefined ? ` (over ${f.suggestion.length} characters)` : ''}\n` : ''}${f.quickFix ? `  quick fix: ${f.quickFix.title}\n` : ''}`,
    )
    .join('');
}

function expectFile(path: string, actual: string): void {
  if (UPDATE) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.ok(existsSync(path), `missing golden file ${path} (run with UPDATE_GOLDEN=1, then review it)`);
  assert.equal(actual, readFileSync(path, 'utf8'), `differs from ${path}`);
}

/** Lints `source`, compares with `<out>` and `<fixed>`, and checks the fix is idempotent. */
export function checkGolden(source: string, name: string, outPath: string, fixedPath: string | undefined, options: LintOptions = {}): void {
  const text = readFileSync(source, 'utf8');
  const findings = lintText(text, options);
  expectFile(outPath, formatOut(name, findings));
  const fixed = applyFixes(text, findings);
  if (fixedPath) expectFile(fixedPath, fixed);
  else assert.equal(fixed, text, `${name}: the fix changed the file but there is no .fixed.yml`);
  for (const f of findings) {
    assert.ok(f.offset >= 0 && f.offset + f.length <= text.length, `${name}: range inside the text`);
    if (f.replacement !== undefined) assert.equal(f.severity, 'error', `${name}: a finding with a fix is an error`);
    else assert.equal(f.severity === 'error', f.rule === 'yaml-syntax', `${name}: only yaml-syntax is an error without a fix`);
  }
  if (parses(text)) assert.ok(parses(fixed), `${name}: the fixed file parses`);
  for (const f of findings.filter((x) => x.quickFix)) {
    // An editor quick fix of several edits: the file still parses and that finding is gone.
    let out = text;
    for (const e of [...f.quickFix!.edits].sort((a, b) => b.offset - a.offset)) out = out.slice(0, e.offset) + e.replacement + out.slice(e.offset + e.length);
    assert.ok(parses(out), `${name}:${f.line}: the quick fix leaves a file that parses`);
    const count = (fs: readonly Finding[]) => fs.filter((x) => x.rule === f.rule).length;
    assert.ok(count(lintText(out, options)) < count(findings), `${name}:${f.line}: the quick fix removes the finding`);
  }
  const again = lintText(fixed, options);
  assert.deepEqual(
    again.filter((f) => f.replacement !== undefined),
    [],
    `${name}: a second fix would change something`,
  );
  assert.equal(applyFixes(fixed, again), fixed);
  const pinnedPath = outPath.replace(/\.out$/, '.pinned.yml');
  if (findings.some((f) => f.suggestion)) {
    assert.ok(
      findings.every((f) => !f.suggestion || (f.severity === 'warning' && f.replacement === undefined)),
      `${name}: a suggestion is offered on a warning without a fix`,
    );
    const pinned = applyFixes(text, findings, { suggestions: true });
    expectFile(pinnedPath, pinned);
    assert.ok(parses(pinned), `${name}: the pinned file parses`);
    const left = lintText(pinned, options);
    assert.deepEqual(
      left.filter((f) => f.replacement !== undefined || f.suggestion),
      [],
      `${name}: --fix-pinned leaves nothing to fix`,
    );
  } else assert.ok(!existsSync(pinnedPath), `${name}: ${pinnedPath} but no suggestion`);
}

export const CORPUS = resolve(__dirname, '../../fixtures/corpus/starter-workflows');

export function corpusFiles(dir = CORPUS): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...corpusFiles(p));
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}
