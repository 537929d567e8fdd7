// `$NAME`, `${NAME}` (also `${NAME:-…}`, `${#NAME}`) and `$env:NAME` in run scripts, outside `${{ }}` spans.
// Any other whole-word use of the name outside `${{ }}` (`NAME=…`, `export NAME`, `%NAME%`,
// `os.environ['NAME']`, `-e NAME`, `read NAME`, prose) may be a reference the linter cannot rename,
// so it is recorded as `other`, which keeps the whole file's rename from being fixed automatically.
// Inside `${{ }}`, `env.NAME` and `secrets.NAME` / `secrets['NAME']` are the expression checks' business;
// other uses there (`env['NAME']`, `'NAME'`) count as `other`.
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';
import { wholeWords } from './envTargets';

// `env.NAME` (an expression occurrence), `secrets.NAME` and `secrets['NAME']` (secrets, not the variable).
const CONTEXT_BEFORE = /(?:(?:env|secrets)\s*\.|secrets\s*\[\s*')\s*$/i;

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
    const placed = new Set<number>();
    for (let m = re.exec(s.value); m; m = re.exec(s.value)) {
      const to = m.index + m[0].length;
      const from = to - rule.from.length;
      placed.add(from);
      if (spans.some((sp) => from >= sp.start && from < sp.end)) continue;
      rep.envOccurrences.push({ rule, scalar: s, from, to, where: 'shell' });
    }
    for (const from of wholeWords(s.value, rule.from)) {
      if (placed.has(from)) continue;
      const inSpan = spans.some((sp) => from >= sp.start && from < sp.end);
      if (inSpan && CONTEXT_BEFORE.test(s.value.slice(Math.max(0, from - 40), from))) continue;
      rep.envOccurrences.push({ rule, scalar: s, from, to: from + rule.from.length, where: 'other' });
    }
  }
}
