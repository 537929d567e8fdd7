// The editor's modules load without cycles: a cycle (activate.ts ↔ showActivationTime.ts was one)
// makes one side see the other half-initialised. Type-only imports are erased and do not count.
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports that load at run time (not `import type`, not `import { type X }` only). */
export function runtimeImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+'(\.[^']+)'/gm)) {
    if (m[1]) continue;
    const names = /^\{([^}]*)\}$/.exec(m[2]!.trim());
    if (names && names[1]!.split(',').every((n) => !n.trim() || n.trim().startsWith('type '))) continue;
    const base = resolve(dirname(file), m[3]!);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target) out.push(target);
  }
  return out;
}

function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'done') return undefined;
    if (state.get(n) === 'open') return [...stack.slice(stack.indexOf(n)), n];
    state.set(n, 'open');
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      const c = visit(m);
      if (c) return c;
    }
    stack.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of graph.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}

describe('module imports', () => {
  it('src/ has no import cycle at run time', () => {
    const graph = new Map<string, string[]>();
    for (const f of sources(join(ROOT, 'src'))) graph.set(f, runtimeImports(f, readFileSync(f, 'utf8')));
    const cycle = findCycle(graph);
    assert.equal(cycle?.map((f) => relative(ROOT, f)).join(' → '), undefined);
  });

  it('the detector finds a cycle and ignores type-only imports', () => {
    const a = join(ROOT, 'src/extension/activate.ts');
    const b = join(ROOT, 'src/extension/commands/showActivationTime.ts');
    assert.deepEqual(
      findCycle(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
      [a, b, a],
    );
    assert.deepEqual(runtimeImports(a, "import type { X } from './config';\nimport { type Y } from './config';"), []);
    assert.deepEqual(runtimeImports(a, "import { settings } from './config';"), [join(ROOT, 'src/extension/config.ts')]);
  });
});
