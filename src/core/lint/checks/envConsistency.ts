// The token variable is renamed consistently within a file: every env key, `$NAME` and `env.NAME`
// of one rule gets a fix, or none does. None does when a program outside the file reads the name:
// the key is set on a `uses:` step or a container (the action or image reads it), or nothing in the file refers to it
// (a tool such as mvn or gh reads it), or one occurrence has no certain position.
import type { Reporter, EnvOccurrence } from './base';

export function settleEnv(rep: Reporter): void {
  const byRule = new Map<string, EnvOccurrence[]>();
  for (const o of rep.envOccurrences) byRule.set(o.rule.id, [...(byRule.get(o.rule.id) ?? []), o]);
  for (const list of byRule.values()) {
    const keys = list.filter((o) => o.where === 'key');
    const consumed = keys.find((o) => o.consumer !== undefined);
    const uncertain = list.find((o) => !o.scalar.range(o.from, o.to).exact);
    let blocked: string | undefined;
    if (consumed) {
      const line = rep.lines.at(consumed.scalar.node.range![0]).line;
      blocked = `on line ${line} it is passed to ${consumed.consumer}, which may read it by this name; rename every occurrence in this file together by hand`;
    }
    else if (keys.length > 0 && keys.length === list.length) blocked = `nothing in this file refers to it, so a program (an action or a tool) reads it by this name`;
    else if (uncertain) {
      const line = rep.lines.at(uncertain.scalar.node.range![0]).line;
      blocked = `the occurrence on line ${line} has no certain position, and all of them must be renamed together`;
    }
    for (const o of list) {
      const { rule } = o;
      const what = o.where === 'key' ? `the env key \`${rule.from}\`` : o.where === 'shell' ? `the variable \`$${rule.from}\`` : `\`env.${rule.from}\``;
      const to = o.where === 'key' ? `\`${rule.to}\`` : o.where === 'shell' ? `\`$${rule.to}\`` : `\`env.${rule.to}\``;
      rep.rename(rule.id, `${what} is ${to} on the service`, o.scalar, o.from, o.to, rule.to, blocked);
    }
  }
}
