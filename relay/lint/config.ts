// Reads `.service-hooks.json` (or --config FILE) for the linter: `lint.rules` (extra mappings) and
// `lint.workflowDirs` (the service's workflow folders, linted by default besides .github/workflows).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../cli/io';
import type { ExtraRule } from '../../src/core/lint';

export interface LintConfig {
  rules: ExtraRule[];
  workflowDirs: string[];
}

export const CONFIG_FILE = '.service-hooks.json';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PATH_SEG = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
const ACTION = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.\/-]+)?$/;
const KINDS = ['action', 'context', 'secret', 'env'] as const;

/** Loads the config; a missing default file is an empty config, a missing --config file is a usage error. */
export async function loadConfig(cwd: string, explicit?: string): Promise<LintConfig> {
  const path = resolve(cwd, explicit ?? CONFIG_FILE);
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if (!explicit && (err as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [], workflowDirs: [] };
    throw new UsageError(`cannot read config ${explicit ?? CONFIG_FILE}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`${explicit ?? CONFIG_FILE} is not valid JSON: ${(err as Error).message}`);
  }
  return parseConfig(json, explicit ?? CONFIG_FILE);
}

export function parseConfig(json: unknown, file: string): LintConfig {
  const fail = (where: string, what: string) => new UsageError(`${file}: ${where} ${what}`);
  if (!isObject(json)) throw fail('top level', 'must be an object');
  const lint = json.lint;
  if (lint === undefined) return { rules: [], workflowDirs: [] };
  if (!isObject(lint)) throw fail('lint', 'must be an object');
  const rules: ExtraRule[] = [];
  if (lint.rules !== undefined) {
    if (!Array.isArray(lint.rules)) throw fail('lint.rules', 'must be an array');
    lint.rules.forEach((r: unknown, i: number) => {
      const at = `lint.rules[${i}]`;
      if (!isObject(r)) throw fail(at, 'must be an object');
      if (!KINDS.includes(r.kind as (typeof KINDS)[number])) throw fail(`${at}.kind`, `must be one of ${KINDS.join(', ')}`);
      const kind = r.kind as ExtraRule['kind'];
      const re = kind === 'action' ? ACTION : kind === 'context' ? PATH_SEG : NAME;
      const shape = kind === 'action' ? 'owner/repo[/path]' : kind === 'context' ? 'a property path such as github.sha' : 'a name such as MY_TOKEN';
      for (const k of ['from', 'to'] as const) {
        if (typeof r[k] !== 'string' || !re.test(r[k] as string)) throw fail(`${at}.${k}`, `must be ${shape}`);
      }
      if (r.id !== undefined && (typeof r.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(r.id))) throw fail(`${at}.id`, 'must be letters, digits, - and _');
      if (r.description !== undefined && typeof r.description !== 'string') throw fail(`${at}.description`, 'must be a string');
      rules.push({
        kind,
        from: r.from as string,
        to: r.to as string,
        ...(r.id !== undefined ? { id: r.id as string } : {}),
        ...(r.description !== undefined ? { description: r.description as string } : {}),
      });
    });
  }
  let workflowDirs: string[] = [];
  if (lint.workflowDirs !== undefined) {
    if (!Array.isArray(lint.workflowDirs) || !lint.workflowDirs.every((d: unknown) => typeof d === 'string' && d !== '')) {
      throw fail('lint.workflowDirs', 'must be an array of folder paths');
    }
    workflowDirs = lint.workflowDirs as string[];
  }
  return { rules, workflowDirs };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
