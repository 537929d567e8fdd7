// Expands the lint command's PATHS|GLOBS into workflow files: a path that exists is a file or a
// folder whatever its characters (`a[1].yml`, `b{x}.yml`); only one that does not exist is a glob
// (*, **, ?, [..], {a,b}), matched while walking from its literal prefix. Folders recurse into *.yml
// and *.yaml. A backslash separates folders only on Windows; elsewhere it is part of a file name.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const SKIP = new Set(['node_modules', '.git']);
const GLOB_CHARS = /[*?[{]/;
/** Folder separators of this platform (a backslash is one only on Windows). */
const WINDOWS = process.platform === 'win32';
const toSlashes = (p: string) => (WINDOWS ? p.replace(/\\/g, '/') : p);

export interface Expanded {
  files: string[];
  /** Arguments that named nothing (missing paths, globs without a match). */
  missing: string[];
}

export async function expandPaths(args: readonly string[], cwd: string): Promise<Expanded> {
  const seen = new Set<string>();
  const files: string[] = [];
  const missing: string[] = [];
  const add = (f: string) => {
    const key = resolve(cwd, f);
    if (!seen.has(key)) {
      seen.add(key);
      files.push(f);
    }
  };
  for (const arg of args) {
    const before = files.length;
    const info = await stat(resolve(cwd, arg)).catch(() => undefined);
    if (!info && GLOB_CHARS.test(arg)) {
      const norm = toSlashes(arg);
      const segs = norm.split('/');
      const firstGlob = segs.findIndex((s) => GLOB_CHARS.test(s));
      const base = segs.slice(0, firstGlob).join('/') || (norm.startsWith('/') ? '/' : '.');
      const re = globToRegExp(norm.replace(/^\.\//, ''));
      for (const f of await walk(cwd, base, () => true)) if (re.test(f.replace(/^\.\//, ''))) add(f);
    } else {
      if (info?.isDirectory()) for (const f of await walk(cwd, arg.replace(/\/+$/, '') || '/', (n) => /\.ya?ml$/i.test(n))) add(f);
      else if (info?.isFile()) add(arg);
    }
    if (files.length === before) missing.push(arg);
  }
  return { files, missing };
}

/** Files under `dir` (as paths that start with `dir`), sorted, skipping node_modules and .git. */
async function walk(cwd: string, dir: string, want: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(resolve(cwd, dir), { withFileTypes: true }).catch(() => []);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = dir === '.' ? e.name : toSlashes(join(dir, e.name));
    if (e.isDirectory()) {
      if (!SKIP.has(e.name)) out.push(...(await walk(cwd, p, want)));
    } else if (e.isFile() && want(e.name)) out.push(p);
  }
  return out;
}

/** A glob as an anchored RegExp over `/`-separated paths. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:[^/]+/)*' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        const body = glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = close;
      }
    } else if (c === '{') {
      re += '(?:';
      depth++;
    } else if (c === '}' && depth > 0) {
      re += ')';
      depth--;
    } else if (c === ',' && depth > 0) re += '|';
    else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
