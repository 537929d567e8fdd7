// `uses:` values, matched whole: `owner/repo@REF` or `owner/repo/<path>@REF` (owner and repo
// case-insensitive), for actions (steps) and reusable workflows (jobs: `owner/repo/.github/workflows/x.yml@REF`).
// Local (./x), docker:// and look-alike names never match.
import type { Finding, RenameRule } from '../types';
import type { Reporter, StringScalar } from './base';

const SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/i;
/** The version comment pinning tools write after a SHA: `# v8.0.0`, `# 8.0.0`, `# tag=v8`, `# pin@v8.0.0`. */
const VERSION_COMMENT = /^[ \t]*#[ \t]*(?:tag=|pin@)?(v?\d+(?:\.\d+)*(?:-[0-9A-Za-z.-]+)?)(?=[\s,;)]|$)/;

/** A comment that says nothing but the version (`# v8.0.0`, `# tag=v8`, `#pin@v8`): it only repeats the new ref. */
const ONLY_VERSION = /^[ \t]*#[ \t]*(?:tag=|pin@)?v?\d+(?:\.\d+)*(?:-[0-9A-Za-z.-]+)?[ \t]*\r?$/;

/**
 * The version in the comment that follows the scalar on its line, if any; `end` is the end of that
 * comment (before a `\r`) when the comment says nothing else, so the suggestion can drop it.
 */
function versionComment(s: StringScalar): { version: string; end?: number } | undefined {
  const end = s.node.range?.[1];
  if (end === undefined) return undefined;
  const eol = s.text.indexOf('\n', end);
  const tail = s.text.slice(end, eol < 0 ? s.text.length : eol);
  const version = VERSION_COMMENT.exec(tail)?.[1];
  if (!version) return undefined;
  return ONLY_VERSION.test(tail) ? { version, end: end + tail.replace(/\r$/, '').length } : { version };
}

/**
 * "Use target@version": replaces the value, and drops a trailing comment that would only repeat the
 * new ref (`service/script@v8.0.0 # v8.0.0`); whatever lies between (a closing quote) is kept.
 */
function pinSuggestion(s: StringScalar, target: string, pin: { version: string; end?: number }): NonNullable<Finding['suggestion']> {
  const replacement = `${target}@${pin.version}`;
  const title = `Use ${replacement} (from the comment)`;
  const r = s.range(0, s.value.length);
  if (pin.end === undefined || !r.exact) return { title, replacement };
  const closing = s.text.slice(r.offset + r.length, s.node.range![1]);
  return { title, replacement: replacement + closing, offset: r.offset, length: pin.end - r.offset };
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
      const pin = versionComment(s);
      const by = pin ? `, or use \`${target}@${pin.version}\`, the version the comment names` : '';
      const text = `${message}, but it is pinned to commit ${ref.slice(0, 12)}…, a commit of the external repository; pin \`${target}\` to one of its own tags or commits by hand${by}`;
      const suggestion = pin ? pinSuggestion(s, target, pin) : undefined;
      rep.note('action-pinned-sha', text, s, 0, v.length, suggestion);
    } else rep.rename(rule.id, message, s, 0, rule.from.length, rule.to);
    return;
  }
}
