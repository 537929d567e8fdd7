// The token variable is renamed consistently within a file: every env key, `$NAME` and `env.NAME`
// of one rule gets a fix, or none does. None does when
// - something recorded in rep.envBlocks forbids it (the target name is already used, an alias hides env keys);
// - a program outside the file reads the name: the key is set on a `uses:` step or a container (the
//   action or image reads it), or nothing in the file refers to it (a tool such as mvn or gh reads it);
// - a run script uses the name in a form that is not renamed (`NAME=…`, `export NAME`, `-e NAME`, …);
// - no env key in the file sets it (its value comes from the runner, $GITHUB_ENV or a tool);
// - one occurrence has no certain position.
import type { Reporter, EnvOccurrence } from './base';

export function settleEnv(rep: Reporter): void {
  const byRule = new Map<string, EnvOccurrence[]>();
  const seen = new Set<string>();
  for (const o of rep.envOccurrences) {
    const id = `${o.rule.id}@${o.scalar.node.range![0]}:${o.from}`;
    if (seen.has(id)) continue; // the same key reached twice (through an alias)
    seen.add(id);
    byRule.set(o.rule.id, [...(byRule.get(o.rule.id) ?? []), o]);
  }
  const lineOf = (offset: number) => rep.lines.at(offset).line;
  for (const list of byRule.values()) {
    const rule = list[0]!.rule;
    const keys = list.filter((o) => o.where === 'key');
    const consumed = keys.find((o) => o.consumer !== undefined);
    const other = list.find((o) => o.where === 'other');
    const uncertain = list.find((o) => !o.scalar.range(o.from, o.to).exact);
    const block = rep.envBlocks.find((b) => b.rule.id === rule.id);
    let blocked: string | undefined;
    if (block) blocked = `on line ${lineOf(block.offset)} ${block.why}`;
    else if (consumed) {
      blocked = `on line ${lineOf(consumed.scalar.node.range![0])} it is passed to ${consumed.consumer}, which may read it by this name; rename every occurrence in this file together by hand`;
    } else if (other) {
      blocked = `on line ${lineOf(other.scalar.range(other.from, other.to).offset)} a run script uses it in a form that is not renamed automatically (an assignment, \`export\`, a program's argument, …), and all of them must be renamed together; rename by hand`;
    } else if (keys.length === 0)
      blocked = `no env key in this file sets it, so its value comes from elsewhere (the runner, $GITHUB_ENV or a tool); rename it by hand where it is set`;
    else if (keys.length === list.length) blocked = `nothing in this file refers to it, so a program (an action or a tool) reads it by this name`;
    else if (uncertain) {
      blocked = `the occurrence on line ${lineOf(uncertain.scalar.node.range![0])} has no certain position, and all of them must be renamed together`;
    }
    for (const o of list) {
      const [what, to] =
        o.where === 'key'
          ? [`the env key \`${rule.from}\``, `\`${rule.to}\``]
          : o.where === 'shell'
            ? [`the variable \`${o.shown?.[0] ?? `$${rule.from}`}\``, `\`${o.shown?.[1] ?? `$${rule.to}`}\``]
            : o.where === 'expression'
              ? [`\`env.${rule.from}\``, `\`env.${rule.to}\``]
              : [`the variable \`${rule.from}\``, `\`${rule.to}\``];
      rep.rename(rule.id, `${what} is ${to} on the service`, o.scalar, o.from, o.to, rule.to, blocked);
    }
  }
}
