// Output formats of `service-hooks lint`: compiler-style text (colour on a TTY unless NO_COLOR),
// a JSON array, and SARIF 2.1.0 (./sarif.ts).
import type { Finding } from '../../src/core/lint';

export interface FileFinding extends Finding {
  file: string;
  /** The file starts with a byte-order mark, which `offset` counts and SARIF's charOffset does not (§3.30.2). */
  bom?: boolean;
}

const C = { bold: '\x1b[1m', red: '\x1b[31m', yellow: '\x1b[33m', dim: '\x1b[2m', reset: '\x1b[0m' };

export function formatText(findings: readonly FileFinding[], color: boolean): string {
  const paint = (code: string, s: string) => (color ? code + s + C.reset : s);
  return findings
    .map((f) => {
      const sev = paint(f.severity === 'error' ? C.red : C.yellow, f.severity);
      return `${paint(C.bold, `${f.file}:${f.line}:${f.column}:`)} ${sev} ${f.message} ${paint(C.dim, `[${f.rule}]`)}\n`;
    })
    .join('');
}

export function formatJson(findings: readonly FileFinding[]): string {
  const rows = findings.map((f) => ({
    file: f.file,
    line: f.line,
    column: f.column,
    endLine: f.endLine,
    endColumn: f.endColumn,
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    replacement: f.replacement ?? null,
  }));
  return JSON.stringify(rows, null, 2) + '\n';
}
