// Maps each UTF-16 unit of a YAML scalar's value back to its offset in the file, for plain,
// single-quoted, double-quoted and block (| and >) scalars. The map is rebuilt from the source and
// checked against the parser's value: when they differ, there is no map and callers do not fix.
import type { Scalar } from 'yaml';

/** `map[i]` = file offset of value unit i, or -1 where the unit has no single source unit (escape, fold, line break). */
export interface ScalarMap {
  value: string;
  map: Int32Array;
}

class Builder {
  chars: string[] = [];
  offs: number[] = [];
  push(ch: string, off: number): void {
    this.chars.push(ch);
    this.offs.push(off);
  }
  text(): string {
    return this.chars.join('');
  }
}

interface Line {
  start: number; // file offset of the first unit
  text: string; // without the line break
}

function splitLines(text: string, from: number, to: number): Line[] {
  const lines: Line[] = [];
  let s = from;
  for (let i = from; i < to; i++) {
    if (text.charCodeAt(i) === 10) {
      const e = i > s && text.charCodeAt(i - 1) === 13 ? i - 1 : i;
      lines.push({ start: s, text: text.slice(s, e) });
      s = i + 1;
    }
  }
  lines.push({ start: s, text: text.slice(s, to) });
  return lines;
}

const isWs = (c: string | undefined) => c === ' ' || c === '\t';

/** Flow scalars (plain, single- and double-quoted): line folding plus a per-line content reader. */
function foldFlow(lines: Line[], b: Builder, readLine: (line: Line, from: number, to: number, b: Builder) => 'escaped-break' | void): void {
  let empties = 0;
  let joinNothing = false;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    let from = 0;
    let to = line.text.length;
    if (k > 0) while (from < to && isWs(line.text[from])) from++;
    if (k < lines.length - 1) while (to > from && isWs(line.text[to - 1])) to--;
    if (k > 0 && k < lines.length - 1 && from === to) {
      empties++;
      continue;
    }
    if (k > 0 && !joinNothing) {
      if (empties > 0) for (let e = 0; e < empties; e++) b.push('\n', -1);
      else b.push(' ', -1);
    }
    empties = 0;
    joinNothing = readLine(line, from, to, b) === 'escaped-break';
  }
}

function plainLine(line: Line, from: number, to: number, b: Builder): void {
  for (let i = from; i < to; i++) b.push(line.text[i]!, line.start + i);
}

function singleLine(line: Line, from: number, to: number, b: Builder): void {
  for (let i = from; i < to; i++) {
    if (line.text[i] === "'" && line.text[i + 1] === "'") {
      b.push("'", -1);
      i++;
    } else b.push(line.text[i]!, line.start + i);
  }
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_LEN: Record<string, number> = { x: 2, u: 4, U: 8 };

function doubleLine(line: Line, from: number, to: number, b: Builder): 'escaped-break' | void {
  // Trailing whitespace after an escaped line break is not trimmed by foldFlow's rule; handle `\` at the end.
  for (let i = from; i < to; i++) {
    const ch = line.text[i]!;
    if (ch !== '\\') {
      b.push(ch, line.start + i);
      continue;
    }
    const next = line.text[i + 1];
    if (next === undefined) return 'escaped-break';
    const hex = HEX_LEN[next];
    if (hex !== undefined) {
      const code = parseInt(line.text.slice(i + 2, i + 2 + hex), 16);
      if (Number.isNaN(code)) throw new Error('bad escape');
      for (const unit of String.fromCodePoint(code)) for (let u = 0; u < unit.length; u++) b.push(unit[u]!, -1);
      i += 1 + hex;
      continue;
    }
    const esc = ESCAPES[next];
    if (esc === undefined) throw new Error('bad escape');
    b.push(esc, -1);
    i++;
  }
}

function blockMap(text: string, start: number, end: number, folded: boolean, value: string): Builder | undefined {
  const nl = text.indexOf('\n', start);
  if (nl < 0 || nl >= end) return new Builder(); // header only: empty value
  const header = text
    .slice(start + 1, nl)
    .replace(/\r$/, '')
    .replace(/\s+#.*$/, '')
    .trim();
  const m = /^([1-9]?)([+-]?)([1-9]?)$/.exec(header);
  if (!m) return undefined;
  const chomp = m[2] === '+' ? 'keep' : m[2] === '-' ? 'strip' : 'clip';
  const lines = splitLines(text, nl + 1, end);
  if (lines.length > 0 && lines[lines.length - 1]!.text === '' && text.charCodeAt(end - 1) === 10) lines.pop();
  const first = lines.find((l) => l.text.trim() !== '');
  const auto = first ? first.text.length - first.text.trimStart().length : 0;
  const explicit = Number(m[1] || m[3] || 0);
  // An explicit indicator is relative to the parent's indentation, which we do not track: try each
  // candidate and keep the one whose result equals the parser's value.
  const candidates = explicit ? Array.from({ length: auto - explicit + 1 }, (_, k) => explicit + k).filter((n) => n > 0) : [auto];
  for (const indent of candidates) {
    const b = blockContent(lines, indent, folded, chomp);
    if (b && b.text() === value) return b;
  }
  return undefined;
}

function blockContent(lines: Line[], indent: number, folded: boolean, chomp: 'keep' | 'strip' | 'clip'): Builder | undefined {
  const b = new Builder();
  let breaks = 0; // line breaks pending since the last content line
  let seenContent = false;
  let prevMore = false;
  for (const line of lines) {
    if (line.text.length <= indent && line.text.trim() === '') {
      breaks++;
      continue;
    }
    if (line.text.slice(0, indent).trim() !== '') return undefined; // less indented: not ours
    const more = folded && isWs(line.text[indent]);
    if (seenContent) {
      if (folded && !more && !prevMore && breaks === 1) b.push(' ', -1);
      else if (folded && !more && !prevMore) for (let k = 1; k < breaks; k++) b.push('\n', -1);
      else for (let k = 0; k < breaks; k++) b.push('\n', -1);
    } else for (let k = 0; k < breaks; k++) b.push('\n', -1);
    for (let i = indent; i < line.text.length; i++) b.push(line.text[i]!, line.start + i);
    breaks = 1;
    seenContent = true;
    prevMore = more;
  }
  if (!seenContent) {
    if (chomp === 'keep') for (let k = 0; k < breaks; k++) b.push('\n', -1);
    return b;
  }
  const trailing = chomp === 'strip' ? 0 : chomp === 'clip' ? 1 : breaks;
  for (let k = 0; k < trailing; k++) b.push('\n', -1);
  return b;
}

/** The value→file map of a string scalar, or undefined when it cannot be rebuilt exactly. */
export function scalarMap(text: string, node: Scalar): ScalarMap | undefined {
  if (typeof node.value !== 'string' || !node.range) return undefined;
  const value = node.value;
  const [start, end] = node.range;
  let b: Builder | undefined;
  try {
    switch (node.type) {
      case 'PLAIN':
        b = new Builder();
        foldFlow(splitLines(text, start, end), b, plainLine);
        break;
      case 'QUOTE_SINGLE':
        if (text[start] !== "'" || text[end - 1] !== "'") return undefined;
        b = new Builder();
        foldFlow(splitLines(text, start + 1, end - 1), b, singleLine);
        break;
      case 'QUOTE_DOUBLE':
        if (text[start] !== '"' || text[end - 1] !== '"') return undefined;
        b = new Builder();
        foldFlow(splitLines(text, start + 1, end - 1), b, doubleLine);
        break;
      case 'BLOCK_LITERAL':
      case 'BLOCK_FOLDED':
        if (text[start] !== '|' && text[start] !== '>') return undefined;
        b = blockMap(text, start, end, node.type === 'BLOCK_FOLDED', value);
        break;
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
  if (!b || b.text() !== value) return undefined;
  return { value, map: Int32Array.from(b.offs) };
}

/** File range of value range [from, to) when every unit maps one-to-one and contiguously; else undefined. */
export function sourceRange(m: ScalarMap, from: number, to: number): { offset: number; length: number } | undefined {
  if (to <= from || to > m.map.length) return undefined;
  const first = m.map[from]!;
  if (first < 0) return undefined;
  for (let i = from + 1; i < to; i++) if (m.map[i] !== first + (i - from)) return undefined;
  return { offset: first, length: to - from };
}
