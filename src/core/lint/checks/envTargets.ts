// The target of an `env` rule already in use: `SERVICE_TOKEN` as an env key, `$SERVICE_TOKEN`,
// `env.SERVICE_TOKEN` or any other whole-word use in any string scalar (keys too). Renaming
// `GITHUB_TOKEN` then would merge two variables (or make a duplicate key), so it is blocked.
// `secrets.SERVICE_TOKEN` is a secret, not a variable, and does not count.
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';

const SECRET_BEFORE = /secrets\s*\.\s*$/i;

/** Offsets (in `value`) of whole-word occurrences of `name`: not inside a longer name. */
export function wholeWords(value: string, name: string): number[] {
  const out: number[] = [];
  for (let i = value.indexOf(name); i >= 0; i = value.indexOf(name, i + 1)) {
    const before = value[i - 1];
    const after = value[i + name.length];
    if ((before === undefined || !/[A-Za-z0-9_]/.test(before)) && (after === undefined || !/[A-Za-z0-9_]/.test(after))) out.push(i);
  }
  return out;
}

export function checkTargets(rep: Reporter, s: StringScalar, rules: readonly RenameRule[]): void {
  for (const rule of rules) {
    if (rule.kind !== 'env' || !s.value.includes(rule.to)) continue;
    for (const at of wholeWords(s.value, rule.to)) {
      if (SECRET_BEFORE.test(s.value.slice(Math.max(0, at - 40), at))) continue;
      rep.envBlocks.push({
        rule,
        offset: s.range(at, at + rule.to.length).offset,
        why: `\`${rule.to}\` is already used (as an env key or a variable), so renaming would merge two variables into one; rename by hand`,
      });
      break;
    }
  }
}
