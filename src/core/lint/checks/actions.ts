// `uses:` values, matched whole: `owner/repo@REF` or `owner/repo/<path>@REF` (owner and repo
// case-insensitive), for actions (steps) and reusable workflows (jobs: `owner/repo/.github/workflows/x.yml@REF`).
// Local (./x), docker:// and look-alike names never match.
import type { RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';

const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i;
/** The version comment pinning tools write after a SHA: `# v8.0.0`, `# 8.0.0`, `# tag=v8`, `# pin@v8.0.0`. */
const VERSION_COMMENT = /^[ \t]*#[ \t]*(?:tag=|pin@)?(v?\d+(?:\.\d+)*(?:-[0-9A-Za-z.-]+)?)(?=[\s,;)]|$)/;

/** The version in the comment that follows the scalar on its line, if any. */
function versionComment(s: StringScalar): string | undefined {
  const end = s.node.range?.[1];
  if (end === undefined) return undefined;
  const eol = s.text.indexOf('\n', end);
  return VERSION_COMMENT.exec(s.text.slice(end, eol < 0 ? s.text.length : eol))?.[1];
}

export function checkUses(rep: Reporter, s: StringScalar, rules: readonly RenameRule[], what: 'action' | 'reusable workflow' = 'action'): void {
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
    const message = `the ${what} \`${m[1]}\` is \`${target}\` on the service`;
    if (SHA.test(ref)) {
      const version = versionComment(s);
      const by = version ? `, or use \`${target}@${version}\`, the version the comment names` : '';
      const text = `${message}, but it is pinned to commit ${ref.slice(0, 12)}…, a commit of the external repository; pin \`${target}\` to one of its own tags or commits by hand${by}`;
      const suggestion = version ? { title: `Use ${target}@${version} (from the comment)`, replacement: `${target}@${version}` } : undefined;
      rep.note('action-pinned-sha', text, s, 0, v.length, suggestion);
    } else rep.rename(rule.id, message, s, 0, rule.from.length, rule.to);
    return;
  }
}
