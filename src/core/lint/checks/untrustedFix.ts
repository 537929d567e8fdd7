// The standard quick fix for `untrusted-input`: move the `${{ … }}` into the step's `env:` and read
// it as an environment variable in the script, quoted for where it stood:
//   sh/bash  "$NAME" (unquoted), ${NAME} (inside "…"), '"$NAME"' (inside '…')
//   pwsh     $env:NAME (unquoted), ${env:NAME} (inside "…"); none inside '…'
//   script   process.env.NAME (unquoted), ' + process.env.NAME + ' (inside '…' or "…"), ${process.env.NAME} (inside `…`)
// Offered only where it is certain: an exact position, a block `env:` map (or none), a known shell;
// and it is checked before it is offered: the edited file must parse, the env entry must hold the
// expression and the script must read the variable where the expression stood. Never applied by
// --fix, --fix-pinned or Fix All.
import { isMap, isScalar, parseDocument, type Document, type Scalar, type YAMLMap } from 'yaml';
import type { Edit, QuickFix } from '../types';
import type { StringScalar } from './base';

export type Lang = 'sh' | 'pwsh' | 'js';
type Quote = '' | "'" | '"' | '`';

export interface FixPlace {
  doc: Document;
  /** Path of the script scalar and of the step map that owns it. */
  path: readonly (string | number | null)[];
  step: readonly (string | number | null)[];
  lang: Lang | undefined;
}

/** The quote the script is inside at value offset `at` (earlier `${{ }}` spans skipped). */
function quoteAt(value: string, at: number, spans: readonly { start: number; end: number }[], lang: Lang): Quote {
  let q: Quote = '';
  for (let i = 0; i < at; i++) {
    const span = spans.find((sp) => sp.start === i);
    if (span) {
      i = span.end - 1;
      continue;
    }
    const c = value[i];
    if (c === '\\' && q !== "'") i++;
    else if (c === '\\' && q === "'" && lang === 'js') i++;
    else if (q === '' && (c === "'" || c === '"' || (c === '`' && lang === 'js'))) q = c;
    else if (q !== '' && c === q) q = '';
  }
  return q;
}

function readForm(lang: Lang, q: Quote, name: string): string | undefined {
  if (lang === 'sh') return q === '' ? `"$${name}"` : q === '"' ? `\${${name}}` : q === "'" ? `'"$${name}"'` : undefined;
  if (lang === 'pwsh') return q === '' ? `$env:${name}` : q === '"' ? `\${env:${name}}` : undefined;
  return q === '' ? `process.env.${name}` : q === '`' ? `\${process.env.${name}}` : `${q} + process.env.${name} + ${q}`;
}

/** `github.event.issue.title` → ISSUE_TITLE; `github.head_ref` → HEAD_REF. */
export function envName(paths: readonly string[]): string {
  const segs = paths[0]!
    .split('.')
    .slice(1)
    .filter((s, k) => !(k === 0 && s === 'event') && s !== '*');
  const last = segs[segs.length - 1]!;
  const name = paths.length === 1 ? segs.join('_') : paths.every((p) => p.endsWith(`.${last}`)) ? last : 'UNTRUSTED';
  return name.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
}

/** As written inside the scalar's YAML style. */
function encode(node: Scalar, s: string): string {
  if (node.type === 'QUOTE_SINGLE') return s.replace(/'/g, "''");
  if (node.type === 'QUOTE_DOUBLE') return s.replace(/[\\"]/g, '\\$&');
  return s;
}

const columnOf = (text: string, offset: number) => offset - (text.lastIndexOf('\n', offset - 1) + 1);

/** Offset of the start of the line after the last non-blank character before `end`. */
function afterLastLine(text: string, end: number): number {
  let k = end;
  while (k > 0 && /\s/.test(text[k - 1]!)) k--;
  const nl = text.indexOf('\n', k);
  return nl < 0 ? text.length : nl + 1;
}

function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset)) out = out.slice(0, e.offset) + e.replacement + out.slice(e.offset + e.length);
  return out;
}

/** The env entry's edit (or none when the same entry is there), and the name it uses. */
function envEdit(text: string, step: YAMLMap, name: string, value: string): { edit?: Edit; name: string } | undefined {
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const env = step.get('env', true);
  if (env === undefined) {
    const first = step.items[0]?.key;
    if (!isScalar(first) || !first.range || !step.range) return undefined;
    const indent = ' '.repeat(columnOf(text, first.range[0]));
    const at = afterLastLine(text, step.range[1]);
    const lead = at === text.length && !text.endsWith('\n') ? nl : '';
    return { name, edit: { offset: at, length: 0, replacement: `${lead}${indent}env:${nl}${indent}  ${name}: ${value}${nl}` } };
  }
  if (!isMap(env) || env.flow || env.items.length === 0 || !env.range) return undefined;
  let unique = name;
  for (let n = 2; ; n++) {
    const have = env.get(unique);
    if (have === undefined) break;
    if (have === value) return { name: unique };
    unique = `${name}_${n}`;
  }
  const first = env.items[0]!.key;
  if (!isScalar(first) || !first.range) return undefined;
  const indent = ' '.repeat(columnOf(text, first.range[0]));
  const at = afterLastLine(text, env.range[1]);
  const lead = at === text.length && !text.endsWith('\n') ? nl : '';
  return { name: unique, edit: { offset: at, length: 0, replacement: `${lead}${indent}${unique}: ${value}${nl}` } };
}

/** The quick fix for the `${{ }}` span [start, end) of the script `s`, or undefined when it is not certain. */
export function untrustedQuickFix(
  s: StringScalar,
  span: { start: number; end: number },
  spans: readonly { start: number; end: number }[],
  paths: readonly string[],
  place: FixPlace,
): QuickFix | undefined {
  if (!place.lang) return undefined;
  const r = s.range(span.start, span.end);
  const step = place.doc.getIn(place.step, true);
  if (!r.exact || !isMap(step)) return undefined;
  const expr = s.value.slice(span.start, span.end);
  const env = envEdit(s.text, step, envName(paths), expr);
  if (!env) return undefined;
  const read = readForm(place.lang, quoteAt(s.value, span.start, spans, place.lang), env.name);
  if (!read) return undefined;
  const edits: Edit[] = [{ offset: r.offset, length: r.length, replacement: encode(s.node, read) }, ...(env.edit ? [env.edit] : [])];
  // The check before offering it: the file parses, and means what the fix says.
  const fixed = parseDocument(applyEdits(s.text, edits), { prettyErrors: false });
  if (fixed.errors.length > 0) return undefined;
  if (fixed.getIn([...place.step, 'env', env.name]) !== expr) return undefined;
  if (fixed.getIn(place.path) !== s.value.slice(0, span.start) + read + s.value.slice(span.end)) return undefined;
  return { title: `Move the value into env: ${env.name} and read ${read}`, edits };
}
