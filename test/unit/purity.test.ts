// src/core and relay/ must never import 'vscode': they run under plain Node (STYLE.md habit 1).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const IMPORTS_VSCODE = /(?:from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|mts|cts|js|mjs)$/.test(name) ? [p] : [];
  });
}

describe('architecture', () => {
  for (const dir of ['src/core', 'relay']) {
    it(`${dir} never imports vscode`, () => {
      const files = sources(join(ROOT, dir));
      assert.ok(files.length > 0, `${dir} has sources`);
      const offenders = files.filter((f) => IMPORTS_VSCODE.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
      assert.deepEqual(offenders, []);
    });
  }

  it('the detector itself catches an import', () => {
    assert.ok(IMPORTS_VSCODE.test("import * as vscode from 'vscode';"));
    assert.ok(IMPORTS_VSCODE.test("const v = require('vscode');"));
    assert.ok(!IMPORTS_VSCODE.test("import { x } from './vscode-helpers';"));
  });
});
