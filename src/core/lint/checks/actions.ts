// `uses:` values, matched whole: `owner/repo@REF` or `owner/repo/<path>@REF` (owner and repo
// case-insensitive). Local (./x), docker:// and look-alike names never match.
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';

const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i;

export function checkUses(rep: Reporter, s: StringScalar, rules: readonly RenameRule[]): void {
  const v = s.value;
  if (v.startsWith('./') || v.startsWith('../') || v.includes('://')) return;
  const m = /^([^@\s]+)@([^@\s]+)$/.exec(v);
  if (!m) return;
  const path = m[1]!.toLowerCase();
  const ref = m[2]!;
  for (const rule of rules) {
    if (rule.kind !== 'action') continue;
    const from = rule.from.toLowerCase();
    if (path !== from && !path.startsWith(from + '/')) continue;
    const target = rule.to + m[1]!.slice(rule.from.length);
    const message = `the action \`${m[1]}\` is \`${target}\` on the service`;
    if (SHA.test(ref)) {
      rep.note(
        'action-pinned-sha',
        `${message}, but it is pinned to commit ${ref.slice(0, 12)}…, a commit of the external repository; pin \`${target}\` to one of its own tags or commits by hand`,
        s,
        0,
        v.length,
      );
    } else rep.rename(rule.id, message, s, 0, rule.from.length, rule.to);
    return;
  }
}
