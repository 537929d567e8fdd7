// Pins who may import whom in src/ and relay/: rooms import only rooms on lower floors (the table
// in ./floors.ts), no file imports one that imports it back, and only src/extension imports 'vscode'.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from '../tempDirs';
import { floorBreaches, roomOf, unplaced, VSCODE_ONLY_UNDER } from './floors';
import { circles, importGraph, posix, sources, type Imports } from './imports';

const ROOT = join(__dirname, '..', '..', '..');

/** Each import as a pair of root-relative paths. */
function edges(graph: Map<string, Imports>, root: string): [string, string][] {
  return [...graph].flatMap(([file, i]) => i.files.map((t): [string, string] => [posix(root, file), posix(root, t)]));
}

function vscodeImporters(graph: Map<string, Imports>, root: string): string[] {
  const allowed = (p: string): boolean => VSCODE_ONLY_UNDER.some((a) => p === a || p.startsWith(`${a}/`));
  return [...graph].filter(([file, i]) => i.packages.includes('vscode') && !allowed(posix(root, file))).map(([file]) => posix(root, file));
}

function tree(files: Record<string, string>): string {
  const dir = makeTempDir('floors-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('architecture: rooms are floors', () => {
  const files = ['src', 'relay'].flatMap((d) => sources(join(ROOT, d)));
  const graph = importGraph(files);

  it('the sources and their imports were read', () => {
    assert.ok(files.length > 100, 'the sources were found');
    assert.ok([...graph.values()].some((i) => i.files.length > 0));
    assert.ok([...graph.values()].some((i) => i.packages.includes('vscode')));
  });

  it('every room has a row in the floor table', () => {
    assert.deepEqual(unplaced(files.map((f) => posix(ROOT, f))), []);
  });

  it('no room imports a room on its own floor or above', () => {
    assert.deepEqual(
      floorBreaches(edges(graph, ROOT)).map((b) => `${b.file} → ${b.imports}: ${b.why}`),
      [],
    );
  });

  it('no file imports one that imports it back', () => {
    assert.deepEqual(
      circles(graph).map((c) => c.map((f) => posix(ROOT, f)).join(' ↔ ')),
      [],
    );
  });

  it('only src/extension imports vscode', () => {
    assert.deepEqual(vscodeImporters(graph, ROOT), []);
  });
});

describe('architecture: the checks themselves', () => {
  const rooms = { low: 0, mid: 1, 'mid/inner': 1, high: 2, 'high/only.ts': 0 };

  it('a file belongs to the longest row it starts with', () => {
    assert.equal(roomOf('mid/a.ts', rooms), 'mid');
    assert.equal(roomOf('mid/inner/b.ts', rooms), 'mid/inner');
    assert.equal(roomOf('mid/deep/c.ts', rooms), 'mid');
    assert.equal(roomOf('high/only.ts', rooms), 'high/only.ts');
    assert.equal(roomOf('middle/x.ts', rooms), undefined);
  });

  it('finds an import upward and one to a sibling on the same floor, through type-only imports and index files', () => {
    const dir = tree({
      'low/a.ts': "// import { h } from '../high/h';\nimport type { H } from '../high';\nexport type A = H;\n",
      'high/index.ts': "import { m } from '../mid/m';\nexport type H = number;\nexport const h = m;\n",
      'high/only.ts': 'export const o = \'import "../high"\';\n',
      'mid/m.ts': "import { o } from '../high/only';\nexport const m = o;\n",
      'mid/inner/i.ts': "import { m } from '../m';\nexport const i = m;\n",
    });
    const found = floorBreaches(edges(importGraph(sources(dir)), dir), rooms).map((b) => `${b.file} → ${b.imports}`);
    assert.deepEqual(found.sort(), ['low/a.ts → high/index.ts', 'mid/inner/i.ts → mid/m.ts']);
  });

  it('names a room without a row', () => {
    const paths = ['src/core/a.ts', 'src/core/new/b.ts', 'src/core/lint/checks/c.ts', 'other/d.ts'];
    assert.deepEqual(unplaced(paths, ['src/core'], { 'src/core': 0, 'src/core/lint': 1 }), ['other/d.ts', 'src/core/new']);
  });

  it('finds a circle through type-only imports, re-exports and index files', () => {
    const dir = tree({
      'a.ts': "// import { no } from './c';\nimport type { B } from './b';\nexport const a = 1;\n",
      'b.ts': "export { c } from './room';\nexport type B = number;\n",
      'room/index.ts': "import { a } from '../a';\nexport const c = a;\n",
      'c.ts': "import { a } from './a';\nconst s = \"import './c'\";\nexport const d = a + s.length;\n",
    });
    const found = circles(importGraph(sources(dir))).map((c) => c.map((f) => posix(dir, f)).join(' ↔ '));
    assert.deepEqual(found, ['a.ts ↔ b.ts ↔ room/index.ts']);
  });

  it('finds vscode imported outside src/extension, in any form, and not in a string or comment', () => {
    const dir = tree({
      'src/core/a.ts': "import * as vscode from 'vscode';\nexport const a = vscode;\n",
      'relay/b.js': "const v = require('vscode');\nmodule.exports = v;\n",
      'relay/c.ts': "export const c = () => import('vscode');\n",
      'relay/d.ts': "// import 'vscode'\nimport { x } from './vscode-helpers';\nexport const d = x + \"from 'vscode'\";\n",
      'relay/vscode-helpers.ts': 'export const x = 1;\n',
      'src/extension/e.ts': "import * as vscode from 'vscode';\nexport const e = vscode;\n",
    });
    assert.deepEqual(vscodeImporters(importGraph(sources(dir)), dir).sort(), ['relay/b.js', 'relay/c.ts', 'src/core/a.ts']);
  });
});
