// Tokenizer for the workflow expression language (the inside of `${{ … }}` and implicit `if:` values).
// Strings ('it''s'), numbers, identifiers (letters, digits, `_`, `-`), operators, `.`, `[`, `]`, `*`.
// A double-quoted string ("push") is not valid there, but is read as a string marked `double`, so the
// names around it are still found and the checks can report it.

export type TokenKind = 'ident' | 'string' | 'number' | 'op';

export interface Token {
  kind: TokenKind;
  /** Offsets into the string that was tokenized (the scalar's value). */
  start: number;
  end: number;
  /** Identifier or operator text; for strings the unescaped value. */
  text: string;
  /** A string written in double quotes, which the expression language does not have. */
  double?: true;
}

export interface TokenRun {
  tokens: Token[];
  /** Offset just past the closing `}}` (template mode) or the end of the input; -1: unterminated or invalid. */
  end: number;
}

const OPS2 = ['&&', '||', '==', '!=', '<=', '>='];
const OPS1 = '!<>()[].,*';

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 45;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Tokenizes `src` from `from`. In template mode it stops after the `}}` that closes the expression
 * (outside string literals); otherwise it runs to `to`. Invalid input yields `end: -1` with the
 * tokens read so far, which callers ignore (precision over recall).
 */
export function tokenize(src: string, from: number, template: boolean, to = src.length): TokenRun {
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    if (template && c === 125 /* } */ && src.charCodeAt(i + 1) === 125) return { tokens, end: i + 2 };
    if (c === 39 /* ' */) {
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= to) return { tokens, end: -1 };
        if (src.charCodeAt(j) === 39) {
          if (src.charCodeAt(j + 1) === 39 && j + 1 < to) {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += src[j];
        j++;
      }
      tokens.push({ kind: 'string', start: i, end: j + 1, text: value });
      i = j + 1;
      continue;
    }
    if (c === 34 /* " */) {
      const close = src.indexOf('"', i + 1);
      if (close < 0 || close >= to) return { tokens, end: -1 };
      tokens.push({ kind: 'string', start: i, end: close + 1, text: src.slice(i + 1, close), double: true });
      i = close + 1;
      continue;
    }
    if (isDigit(c) || (c === 45 /* - */ && isDigit(src.charCodeAt(i + 1)))) {
      const m = /-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/y;
      m.lastIndex = i;
      const hit = m.exec(src);
      const end = Math.min(to, i + (hit ? hit[0].length : 1));
      tokens.push({ kind: 'number', start: i, end, text: src.slice(i, end) });
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < to && isIdentPart(src.charCodeAt(j))) j++;
      tokens.push({ kind: 'ident', start: i, end: j, text: src.slice(i, j) });
      i = j;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (i + 2 <= to && OPS2.includes(two)) {
      tokens.push({ kind: 'op', start: i, end: i + 2, text: two });
      i += 2;
      continue;
    }
    if (OPS1.includes(src[i]!)) {
      tokens.push({ kind: 'op', start: i, end: i + 1, text: src[i]! });
      i++;
      continue;
    }
    return { tokens, end: -1 };
  }
  return { tokens, end: template ? -1 : to };
}

/** `${{ … }}` spans of a string: [start of `${{`, end after `}}`) and their tokens. Stops at the first unterminated span. */
export function templateSpans(value: string): { start: number; end: number; tokens: Token[] }[] {
  const spans: { start: number; end: number; tokens: Token[] }[] = [];
  let at = value.indexOf('${{');
  while (at >= 0) {
    const run = tokenize(value, at + 3, true);
    if (run.end < 0) break;
    spans.push({ start: at, end: run.end, tokens: run.tokens });
    at = value.indexOf('${{', run.end);
  }
  return spans;
}
