// Reads of a variable by its name in run scripts, outside `${{ }}` spans, are renamed together with
// the env key. One rule for every shell and language the linter recognises (READERS below):
//   sh/bash  `$NAME`, `${NAME}` (also `${NAME:-…}`, `${#NAME}`)   pwsh  `$env:NAME`, `${env:NAME}`
//   cmd      `%NAME%`, `!NAME!`                                    python `os.environ['NAME']`,
//   `os.environ.get('NAME'…)`, `os.getenv('NAME'…)`               node  `process.env.NAME`, `process.env['NAME']`
//   ruby     `ENV['NAME']`, `ENV.fetch('NAME'…)`                   perl  `$ENV{NAME}`, `$ENV{'NAME'}`
// Any other whole-word use of the name outside `${{ }}` (`NAME=…`, `export NAME`, `-e NAME`,
// `read NAME`, prose) may be a reference the linter cannot rename, so it is recorded as `other`,
// which keeps the whole file's rename from being fixed automatically.
// Inside `${{ }}`, `env.NAME` and `secrets.NAME` / `secrets['NAME']` are the expression checks' business;
// other uses there (`env['NAME']`, `'NAME'`) count as `other`.
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';
import { wholeWords } from './envTargets';

// `env.NAME` (an expression occurrence), `secrets.NAME` and `secrets['NAME']` (secrets, not the variable).
const CONTEXT_BEFORE = /(?:(?:env|secrets)\s*\.|secrets\s*\[\s*')\s*$/i;

const Q = `['"]`;
const END = '(?![A-Za-z0-9_])';
/** Each reader form: the text before the name, the text that must follow it, and how a message shows it. */
const READERS: readonly { before: string; after: string; show(name: string): string }[] = [
  { before: '\\$\\{[#!]?', after: '[}:#%/^,@\\[]', show: (n) => `$${n}` },
  { before: '\\$\\{[Ee][Nn][Vv]:', after: '\\}', show: (n) => `$env:${n}` },
  { before: '\\$[Ee][Nn][Vv]:', after: END, show: (n) => `$env:${n}` },
  { before: `\\$ENV\\{\\s*${Q}?`, after: `${Q}?\\s*\\}`, show: (n) => `$ENV{${n}}` },
  { before: '\\$', after: END, show: (n) => `$${n}` },
  { before: '%', after: '%', show: (n) => `%${n}%` },
  { before: '(?<![A-Za-z0-9_])!', after: '!', show: (n) => `!${n}!` },
  { before: `\\bos\\.environ\\[\\s*${Q}`, after: `${Q}\\s*\\]`, show: (n) => `os.environ['${n}']` },
  { before: `\\bos\\.environ\\.get\\(\\s*${Q}`, after: Q, show: (n) => `os.environ.get('${n}')` },
  { before: `\\bos\\.getenv\\(\\s*${Q}`, after: Q, show: (n) => `os.getenv('${n}')` },
  { before: '\\bprocess\\.env\\.', after: '(?![A-Za-z0-9_$])', show: (n) => `process.env.${n}` },
  { before: `\\bprocess\\.env\\[\\s*${Q}`, after: `${Q}\\s*\\]`, show: (n) => `process.env['${n}']` },
  { before: `(?<![A-Za-z0-9_$])ENV\\[\\s*${Q}`, after: `${Q}\\s*\\]`, show: (n) => `ENV['${n}']` },
  { before: `(?<![A-Za-z0-9_$])ENV\\.fetch\\(\\s*${Q}`, after: Q, show: (n) => `ENV.fetch('${n}')` },
];

const patterns = new Map<string, RegExp>();

/** One RegExp per name: a group per reader form, each ending right after the name. */
function pattern(name: string): RegExp {
  let re = patterns.get(name);
  if (!re) {
    const n = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    re = new RegExp(READERS.map((r) => `(${r.before})${n}(?=${r.after})`).join('|'), 'g');
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
      const form = READERS[m.slice(1).findIndex((g) => g !== undefined)]!;
      rep.envOccurrences.push({ rule, scalar: s, from, to, where: 'shell', shown: [form.show(rule.from), form.show(rule.to)] });
    }
    for (const from of wholeWords(s.value, rule.from)) {
      if (placed.has(from)) continue;
      const inSpan = spans.some((sp) => from >= sp.start && from < sp.end);
      if (inSpan && CONTEXT_BEFORE.test(s.value.slice(Math.max(0, from - 40), from))) continue;
      rep.envOccurrences.push({ rule, scalar: s, from, to: from + rule.from.length, where: 'other' });
    }
  }
}
