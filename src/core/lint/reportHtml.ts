// The port report's Markdown (report.ts) as HTML for the editor's report view: headings,
// paragraphs, lists, tables (alignment kept), code spans, **bold**, backslash escapes and links.
// Only that subset, because only report.ts writes it. A link becomes an anchor that carries its
// target in data-target (the view opens the file at the line; a file: URI is not a link a Markdown
// renderer or a webview would follow). Everything else is HTML-escaped.

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]!};`);

/** The index of the `)` that closes a link destination opened just before `from` (balanced parentheses), or -1. */
function destinationEnd(s: string, from: number): number {
  let depth = 0;
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '(') depth++;
    else if (s[i] === ')' && depth-- === 0) return i;
  }
  return -1;
}

/** The index of the `]` that closes link text opened at `open`, or -1. */
function textEnd(s: string, open: number): number {
  for (let i = open + 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '`') {
      const close = s.indexOf('`', i + 1);
      if (close < 0) return -1;
      i = close;
    } else if (s[i] === ']') return i;
  }
  return -1;
}

export function inlineHtml(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length && /[!-/:-@[-`{-~]/.test(s[i + 1]!)) {
      out += esc(s[++i]!);
    } else if (c === '`') {
      const close = s.indexOf('`', i + 1);
      if (close < 0) out += '`';
      else {
        out += `<code>${esc(s.slice(i + 1, close))}</code>`;
        i = close;
      }
    } else if (c === '*' && s[i + 1] === '*') {
      const close = s.indexOf('**', i + 2);
      if (close < 0) out += '**';
      else out += `<strong>${inlineHtml(s.slice(i + 2, close))}</strong>`;
      i = close < 0 ? i + 1 : close + 1;
    } else if (c === '[') {
      const te = textEnd(s, i);
      const de = te > 0 && s[te + 1] === '(' ? destinationEnd(s, te + 2) : -1;
      if (de < 0) out += '[';
      else {
        const target = s.slice(te + 2, de);
        out += `<a href="#" data-target="${esc(target)}" title="${esc(target)}">${inlineHtml(s.slice(i + 1, te))}</a>`;
        i = de;
      }
    } else out += esc(c);
  }
  return out;
}

/** Cells of a table row: split at `|` that is not escaped or inside a code span. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cur = '';
  let code = false;
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && body[i + 1] === '|') {
      cur += '\\|';
      i++;
    } else if (c === '`') {
      code = !code;
      cur += c;
    } else if (c === '|' && !code) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

function table(rows: string[]): string {
  const head = cells(rows[0]!);
  const align = cells(rows[1] ?? '').map((a) => (/^:?-+:$/.test(a) ? (a.startsWith(':') ? 'center' : 'right') : 'left'));
  const cell = (tag: string, c: string, k: number) => `<${tag} style="text-align:${align[k] ?? 'left'}">${inlineHtml(c)}</${tag}>`;
  const body = rows.slice(2).map(
    (r) =>
      `<tr>${cells(r)
        .map((c, k) => cell('td', c, k))
        .join('')}</tr>`,
  );
  return `<div class="table"><table><thead><tr>${head.map((c, k) => cell('th', c, k)).join('')}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

/** The HTML body of a port report. */
export function reportHtml(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading) {
      out.push(`<h${heading[1]!.length}>${inlineHtml(heading[2]!)}</h${heading[1]!.length}>`);
      i++;
    } else if (line.startsWith('|')) {
      const rows: string[] = [];
      while (i < lines.length && lines[i]!.startsWith('|')) rows.push(lines[i++]!);
      out.push(table(rows));
    } else if (line.startsWith('- ')) {
      const items: string[] = [];
      while (i < lines.length && lines[i]!.startsWith('- ')) items.push(`<li>${inlineHtml(lines[i++]!.slice(2))}</li>`);
      out.push(`<ul>${items.join('')}</ul>`);
    } else if (line.trim() === '') i++;
    else {
      const para: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && !/^(#{1,6} |\||- )/.test(lines[i]!)) para.push(lines[i++]!);
      out.push(`<p>${inlineHtml(para.join(' '))}</p>`);
    }
  }
  return out.join('\n');
}
