// applyFixes: only the findings that carry a replacement (with `suggestions`, also those that carry a
// suggestion), as non-overlapping edits, joined from slices of the text in one pass (linear in the
// text plus the edits).
import type { Finding, FixOptions } from './types';

export function applyFixes(text: string, findings: readonly Finding[], options: FixOptions = {}): string {
  const edits = findings
    .map((f) => (f.replacement === undefined && options.suggestions && f.suggestion ? { ...f, replacement: f.suggestion.replacement } : f))
    .filter((f) => f.replacement !== undefined && f.offset >= 0 && f.offset + f.length <= text.length)
    .sort((a, b) => a.offset - b.offset || a.length - b.length);
  const parts: string[] = [];
  let prev: Finding | undefined;
  let end = -1; // end of the last kept edit
  let copied = 0; // text before this offset is already in `parts`
  for (const f of edits) {
    if (prev && prev.offset === f.offset && prev.length === f.length && prev.replacement === f.replacement) continue;
    if (f.offset < end || (prev && f.offset === prev.offset && f.offset === end)) continue; // overlaps (or two inserts at one point)
    parts.push(text.slice(copied, f.offset), f.replacement!);
    copied = f.offset + f.length;
    prev = f;
    end = copied;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}
