// `$NAME`, `${NAME}` (also `${NAME:-…}`, `${#NAME}`) and `$env:NAME` in run scripts, outside `${{ }}` spans.
// Prose that names the variable without `$` stays untouched.
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';

const patterns = new Map<string, RegExp>();

function pattern(name: string): RegExp {
  let re = patterns.get(name);
  if (!re) {
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    re = new RegExp(`(?:\\$\\{[#!]?(?=${n}[}:#%/^,@\\[])|\\$[Ee][Nn][Vv]:|\\$)${n}(?![A-Za-z0-9_])`, 'g');
    patterns.set(name, re);
  }
  return re;
}

export function checkShell(rep: Reporter, s: StringScalar, spans: readonly { start: number; end: number }[], rules: readonly RenameRule[]): void {
  for (const rule of rules) {
    if (rule.kind !== 'env' || !s.value.includes(rule.from)) continue;
    const re = pattern(rule.from);
    re.lastIndex = 0;
    for (let m = re.exec(s.value); m; m = re.exec(s.value)) {
      const to = m.index + m[0].length;
      const from = to - rule.from.length;
      if (spans.some((sp) => from >= sp.start && from < sp.end)) continue;
      rep.envOccurrences.push({ rule, scalar: s, from, to, where: 'shell' });
    }
  }
}
