// No import circles in src/ or relay/: a file's imports (type-only ones too) never lead back to
// it. A circle means two files share a piece that belongs a floor below both; move it there.
// The graph is read with TypeScript's own import scanner (comments and strings are skipped).
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';
import { makeTempDir } from './tempDirs';

const ROOT = join(__dirname, '..', '..');
const SOURCE = /\.(ts|mts|cts)$/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The file a relative specifier names (./x → x.ts or x/index.ts); undefined for packages and other files. */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec.replace(/\.[mc]?js$/, ''));
  const candidates = [base, `${base}.ts`, `${base}.mts`, `${base}.cts`, join(base, 'index.ts')];
  return candidates.find((c) => SOURCE.test(c) && existsSync(c) && statSync(c).isFile());
}

/** Each file and the files it imports (static, type-only, re-exports and dynamic import()). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const scanned = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    const targets = scanned.map((i) => resolveImport(file, i.fileName)).filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function named(component: string[], root: string): string {
  return component.map((f) => relative(root, f)).join(' ↔ ');
}

describe('architecture: import circles', () => {
  it('src/ and relay/ have none', () => {
    const files = ['src', 'relay'].flatMap((d) => sources(join(ROOT, d)));
    assert.ok(files.length > 100, 'the sources were found');
    const graph = importGraph(files);
    assert.ok(
      [...graph.values()].some((t) => t.length > 0),
      'imports were read',
    );
    assert.deepEqual(
      circles(graph).map((c) => named(c, ROOT)),
      [],
    );
  });

  it('the detector finds a circle through type-only imports, re-exports and index files', () => {
    const dir = makeTempDir('circles-');
    const write = (name: string, text: string): void => {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    };
    write('a.ts', "// import { no } from './c';\nimport type { B } from './b';\nexport const a = 1;\n");
    write('b.ts', "export { c } from './room';\nexport type B = number;\n");
    write('room/index.ts', "import { a } from '../a';\nexport const c = a;\n");
    write('c.ts', "import { a } from './a';\nconst s = \"import './c'\";\nexport const d = a + s.length;\n");
    const found = circles(importGraph(sources(dir))).map((c) => named(c, dir));
    assert.deepEqual(found, ['a.ts ↔ b.ts ↔ room/index.ts']);
  });
});
