// The import graph of src/ and relay/, read with TypeScript's own import scanner (comments and
// strings are skipped; type-only imports, re-exports and dynamic import() count), and the circles
// in it. ./floors.ts judges the same graph by rooms.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Every source file under dir (TypeScript and JavaScript, no declaration files). */
export function sources(dir: string): string[] {
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

export interface Imports {
  /** Source files it imports. */
  files: string[];
  /** Packages it imports, by name ('vscode', 'node:fs', 'undici'). */
  packages: string[];
}

/** Each file and what it imports. */
export function importGraph(files: readonly string[]): Map<string, Imports> {
  const graph = new Map<string, Imports>();
  for (const file of files) {
    const scanned = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((i) => i.fileName);
    const targets = scanned.map((s) => resolveImport(file, s)).filter((t): t is string => t !== undefined);
    const packages = scanned.filter((s) => !s.startsWith('.'));
    graph.set(file, { files: [...new Set(targets)], packages: [...new Set(packages)] });
  }
  return graph;
}

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function circles(graph: Map<string, Imports>): string[][] {
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
    for (const w of graph.get(v)?.files ?? []) {
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
    if (component.length > 1 || (graph.get(v)?.files ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** A path relative to root with '/' separators, as the floor table names them. */
export function posix(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}
