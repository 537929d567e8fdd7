// lintText: parse once (yaml + node ranges), walk (a workflow or a composite action), settle the env
// renames, sort by position.
import { parseDocument } from 'yaml';
import { Reporter } from './checks/base';
import { settleEnv } from './checks/envConsistency';
import { aliasedNodes } from './checks/envAliases';
import { exprRules } from './checks/expressions';
import { LineIndex } from './positions';
import { ruleTable } from './rules';
import type { Finding, LintOptions } from './types';
import { isCompositeAction, walk } from './walk';

export function lintText(text: string, options: LintOptions = {}): Finding[] {
  const rep = new Reporter(new LineIndex(text));
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const err of doc.errors) {
      const start = Math.min(err.pos[0], text.length);
      const end = Math.min(Math.max(err.pos[1], start), text.length);
      rep.add('yaml-syntax', 'error', `invalid YAML: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`, start, end - start);
    }
    return rep.findings;
  }
  const rules = ruleTable(options.rules);
  const envNames = new Set(rules.filter((r) => r.kind === 'env').map((r) => r.from));
  walk({ text, rep, rules, expr: exprRules(rules), envNames, doc, aliased: aliasedNodes(doc), composite: isCompositeAction(doc) }, doc.contents, []);
  settleEnv(rep);
  return rep.findings.sort((a, b) => a.offset - b.offset || a.length - b.length || a.rule.localeCompare(b.rule));
}
