// Structure rules of the codebase that a reviewer would otherwise have to re-check by hand
// (issue 9): no function in src/ or relay/ over 100 lines; every test file opens with a comment
// line saying what it pins (issue 37 item 4); every unreleased CHANGELOG entry is one line, its
// details in docs/ (issue 37 item 6).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const MAX_FUNCTION_LINES = 100;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every function-like node with a body, with its length in lines. */
function functionLengths(file: string): { where: string; lines: number }[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out: { where: string; lines: number }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && (n as ts.FunctionLikeDeclaration).body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ where: `${relative(ROOT, file)}:${first + 1}`, lines: last - first + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** Test files: every `*.test.ts` / `*.test.mjs` under test/ (fixtures aside). */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'fixtures' ? [] : testFiles(join(dir, e.name))) : /\.test\.(ts|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/**
 * A test file's first line is a comment in words saying what it pins: not code, not a blank line,
 * not a tool's directive (eslint, ts, prettier), and a phrase rather than a word or two.
 */
function opensWithWhatItPins(text: string): boolean {
  const first = text.split('\n', 1)[0];
  const m = /^\/\/ (.*)$/.exec(first);
  if (!m || /^(eslint|@ts-|prettier|#region)/.test(m[1])) return false;
  return m[1].trim().split(/\s+/).length >= 5;
}

/** The lines of the CHANGELOG's [Unreleased] section that continue an entry on a second line. */
function wrappedEntries(changelog: string): string[] {
  const start = changelog.indexOf('## [Unreleased]');
  const end = changelog.indexOf('\n## [', start + 1);
  const section = changelog.slice(start, end < 0 ? undefined : end);
  return section.split('\n').filter((line) => /^\s+\S/.test(line));
}

describe('code structure', () => {
  it(`no function in src/ or relay/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'relay'))];
    const all = files.flatMap(functionLengths);
    assert.ok(all.length > 500, `found the functions (${all.length})`);
    const long = all.filter((f) => f.lines > MAX_FUNCTION_LINES).map((f) => `${f.where} (${f.lines} lines)`);
    assert.deepEqual(long, []);
  });

  it('the opening-line rule refuses code, a directive or a bare word first, and takes a sentence', () => {
    assert.equal(opensWithWhatItPins("import { strict as assert } from 'node:assert';\n"), false);
    assert.equal(opensWithWhatItPins('\n// Pins the journal.\n'), false);
    assert.equal(opensWithWhatItPins('// eslint-disable-next-line no-console\nimport x from "y";\n'), false);
    assert.equal(opensWithWhatItPins('// helpers\n'), false);
    assert.equal(opensWithWhatItPins('// The journal truncates a torn tail at start-up.\nimport x from "y";\n'), true);
  });

  it('every test file opens with a comment line saying what it pins', () => {
    const files = testFiles(join(ROOT, 'test'));
    assert.ok(files.length > 150, `found the test files (${files.length})`);
    const bare = files.filter((f) => !opensWithWhatItPins(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    assert.deepEqual(bare, [], 'open each of these with a `// …` line saying what it pins');
  });

  it('the changelog rule finds an entry wrapped onto a second line, in [Unreleased] only', () => {
    const text = '## [Unreleased]\n\n### Added\n\n- One line.\n- Two\n  lines.\n\n## [0.1.0] - 2026-01-01\n\n- Old\n  wrapped.\n';
    assert.deepEqual(wrappedEntries(text), ['  lines.']);
  });

  it('every unreleased CHANGELOG entry is one line (details go in docs/)', () => {
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
    assert.ok(changelog.includes('## [Unreleased]'), 'found the unreleased section');
    assert.deepEqual(wrappedEntries(changelog), [], 'join these onto their entry, or move the details into docs/');
  });
});
