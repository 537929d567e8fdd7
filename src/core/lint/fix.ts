// applyFixes: only the findings that carry a replacement, as non-overlapping edits applied back to front.
import type { Finding } from './types';

export function applyFixes(text: string, findings: readonly Finding[]): string {
  const edits = findings
    .filter((f) => f.replacement !== undefined && f.offset >= 0 && f.offset + f.length <= text.length)
    .slice()
    .sort((a, b) => a.offset - b.offset || a.length - b.length);
  const kept: Finding[] = [];
  let end = -1;
  for (const f of edits) {
    const prev = kept[kept.length - 1];
    if (prev && prev.offset === f.offset && prev.length === f.length && prev.replacement === f.replacement) continue;
    if (f.offset < end || (prev && f.offset === prev.offset && f.offset === end)) continue; // overlaps (or two inserts at one point)
    kept.push(f);
    end = f.offset + f.length;
  }
  let out = text;
  for (let i = kept.length - 1; i >= 0; i--) {
    const f = kept[i]!;
    out = out.slice(0, f.offset) + f.replacement! + out.slice(f.offset + f.length);
  }
  return out;
}
