// The pure `.service-hooks.json` parser for the linter: `lint.rules` (extra mappings) and
// `lint.workflowDirs` (the service's workflow folders, linted by default besides .github/workflows).
// Shared by the CLI (relay/lint/config.ts reads the file) and the editor (src/extension/lint/lintRules.ts).
import type { ExtraRule } from './types';

export interface LintConfig {
  rules: ExtraRule[];
  workflowDirs: string[];
}

export const CONFIG_FILE = '.service-hooks.json';

/** A config that is not valid: the message names the file and the key. */
export class LintConfigError extends Error {
  override name = 'LintConfigError';
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PATH_SEG = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;
const ACTION = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_./-]+)?$/;
const KINDS = ['action', 'context', 'secret', 'env'] as const;

/** Parses the text of a config file; `file` names it in errors. */
export function parseConfigText(text: string, file: string): LintConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new LintConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseConfig(json, file);
}

export function parseConfig(json: unknown, file: string): LintConfig {
  const fail = (where: string, what: string) => new LintConfigError(`${file}: ${where} ${what}`);
  if (!isObject(json)) throw fail('top level', 'must be an object');
  const lint = json.lint;
  if (lint === undefined) return { rules: [], workflowDirs: [] };
  if (!isObject(lint)) throw fail('lint', 'must be an object');
  const rules: ExtraRule[] = [];
  if (lint.rules !== undefined) {
    if (!Array.isArray(lint.rules)) throw fail('lint.rules', 'must be an array');
    lint.rules.forEach((r: unknown, i: number) => rules.push(parseRule(r, `lint.rules[${i}]`, fail)));
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

function parseRule(r: unknown, at: string, fail: (where: string, what: string) => Error): ExtraRule {
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
  return {
    kind,
    from: r.from as string,
    to: r.to as string,
    ...(r.id !== undefined ? { id: r.id as string } : {}),
    ...(r.description !== undefined ? { description: r.description as string } : {}),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
