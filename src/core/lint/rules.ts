// The rename table (spec §2.6), kept as data, and the ids of the cautions that have no table entry.
// Check modules in ./checks interpret each `kind`; nothing here is code about a particular name.
import type { RenameRule, Severity } from './types';

export const BUILTIN_RULES: readonly RenameRule[] = [
  { id: 'token-secret', kind: 'secret', from: 'GITHUB_TOKEN', to: 'SERVICE_TOKEN' },
  { id: 'token-env', kind: 'env', from: 'GITHUB_TOKEN', to: 'SERVICE_TOKEN', readBy: ['gh', 'hub'] },
  { id: 'context-event', kind: 'context', from: 'github.event', to: 'service.event' },
  { id: 'context-repository', kind: 'context', from: 'github.repository', to: 'service.repository' },
  { id: 'action-script', kind: 'action', from: 'actions/github-script', to: 'service/script' },
  { id: 'action-codeql', kind: 'action', from: 'github/codeql-action', to: 'service/codeql-action' },
];

/**
 * Findings that are not renames. Severities: a rename with a fix is an error (the workflow breaks on
 * the service until it is applied); a finding without a fix is a warning (a caution to check by hand).
 */
export const NOTE_RULES: readonly { id: string; severity: Severity; description: string }[] = [
  { id: 'yaml-syntax', severity: 'error', description: 'the file is not valid YAML, so it was not checked' },
  {
    id: 'expression-double-quote',
    severity: 'error',
    description: 'a double-quoted string in an expression (e.g. an `if:`) is invalid; strings take single quotes',
  },
  { id: 'context-whole', severity: 'warning', description: 'a whole context is used (e.g. toJSON(github)); names inside it differ on the service' },
  { id: 'context-dynamic', severity: 'warning', description: "a context is indexed dynamically (e.g. github['event']); it may reach a renamed name" },
  {
    id: 'action-pinned-sha',
    severity: 'warning',
    description: 'a renamed action is pinned to a commit of the external repository; pin the service action by hand',
  },
  {
    id: 'untrusted-input',
    severity: 'warning',
    description:
      'an untrusted value (an issue or pull request title or body, a branch name, a commit message, an author…) is used directly in a run: or script: (script injection); pass it through env: and read the variable',
  },
];

/** One-line description of a rename, for SARIF rule metadata and messages. */
export function describeRule(rule: Pick<RenameRule, 'kind' | 'from' | 'to' | 'description'>): string {
  if (rule.description) return rule.description;
  switch (rule.kind) {
    case 'action':
      return `the action ${rule.from} is ${rule.to} on the service`;
    case 'context':
      return `the context ${rule.from} is ${rule.to} on the service`;
    case 'secret':
      return `the secret ${rule.from} is ${rule.to} on the service`;
    case 'env':
      return `the variable ${rule.from} is ${rule.to} on the service`;
  }
}

/** Built-in table plus extra rules (ids default to `extra-<kind>-<n>`), extras after the built-ins. */
export function ruleTable(extra: readonly import('./types').ExtraRule[] = []): RenameRule[] {
  return [...BUILTIN_RULES, ...extra.map((r, i) => ({ ...r, id: r.id ?? `extra-${r.kind}-${i + 1}` }))];
}
