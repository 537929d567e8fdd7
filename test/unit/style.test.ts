// Structure rules of the codebase that a reviewer would otherwise have to re-check by hand
// (issue 9): no function in src/ or relay/ over 100 lines.
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

describe('code structure', () => {
  it(`no function in src/ or relay/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'relay'))];
    const all = files.flatMap(functionLengths);
    assert.ok(all.length > 500, `found the functions (${all.length})`);
    const long = all.filter((f) => f.lines > MAX_FUNCTION_LINES).map((f) => `${f.where} (${f.lines} lines)`);
    assert.deepEqual(long, []);
  });
});
