// applyFixes: only the findings that carry a replacement (with `suggestions`, also those that carry a
// suggestion), as non-overlapping edits, joined from slices of the text in one pass (linear in the
// text plus the edits). Every fix must leave a file that parses: when the fixed text does not parse
// (and the original did), the edits are tried one at a time and each one that would break the file
// is refused (left out, and listed in `refused`). So the check lives here, not only in tests.
import { parseDocument } from 'yaml';
import type { Finding, FixOptions } from './types';

interface Edit {
  finding: Finding;
  offset: number;
  length: number;
  replacement: string;
}

export interface CheckedFix {
  text: string;
  /** Findings whose edit was left out because the file would no longer parse with it. */
  refused: Finding[];
}

/** The edit a finding stands for: its fix, else (with `suggestions`) its suggestion, with its own range if it has one. */
function editOf(f: Finding, options: FixOptions): Edit | undefined {
  if (f.replacement !== undefined) return { finding: f, offset: f.offset, length: f.length, replacement: f.replacement };
  if (!options.suggestions || !f.suggestion) return undefined;
  const s = f.suggestion;
  return { finding: f, offset: s.offset ?? f.offset, length: s.length ?? f.length, replacement: s.replacement };
}

function join(text: string, edits: readonly Edit[]): string {
  const parts: string[] = [];
  let prev: Edit | undefined;
  let end = -1; // end of the last kept edit
  let copied = 0; // text before this offset is already in `parts`
  for (const e of edits) {
    if (prev && prev.offset === e.offset && prev.length === e.length && prev.replacement === e.replacement) continue;
    if (e.offset < end || (prev && e.offset === prev.offset && e.offset === end)) continue; // overlaps (or two inserts at one point)
    parts.push(text.slice(copied, e.offset), e.replacement);
    copied = e.offset + e.length;
    prev = e;
    end = copied;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/** Whether `text` is YAML without errors. */
export function parses(text: string): boolean {
  return parseDocument(text, { prettyErrors: false }).errors.length === 0;
}

export function applyFixesChecked(text: string, findings: readonly Finding[], options: FixOptions = {}): CheckedFix {
  const edits = findings
    .map((f) => editOf(f, options))
    .filter((e): e is Edit => e !== undefined && e.offset >= 0 && e.offset + e.length <= text.length)
    .sort((a, b) => a.offset - b.offset || a.length - b.length);
  const all = join(text, edits);
  if (all === text || parses(all) || !parses(text)) return { text: all, refused: [] };
  const kept: Edit[] = [];
  const refused: Finding[] = [];
  for (const e of edits) {
    if (parses(join(text, [...kept, e]))) kept.push(e);
    else refused.push(e.finding);
  }
  return { text: join(text, kept), refused };
}

export function applyFixes(text: string, findings: readonly Finding[], options: FixOptions = {}): string {
  return applyFixesChecked(text, findings, options).text;
}

/** The title of a fix ("Replace with 'x'"), quoted so that quotes inside the replacement read right. */
export function fixTitle(replacement: string): string {
  if (!replacement.includes("'")) return `Replace with '${replacement}'`;
  if (!replacement.includes('"')) return `Replace with "${replacement}"`;
  return `Replace with \`${replacement}\``;
}
