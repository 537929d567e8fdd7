// Shared base of the checks: a string scalar with its lazily built value→file map, and the
// reporter that turns value ranges into findings (a fix only where the file range is certain).
import type { Scalar } from 'yaml';
import type { LineIndex } from '../positions';
import { scalarMap, sourceRange, type ScalarMap } from '../scalarMap';
import type { Finding, RenameRule, Severity } from '../types';

export class StringScalar {
  private mapped: ScalarMap | undefined | null = null;
  constructor(
    readonly text: string,
    readonly node: Scalar,
    readonly value: string,
  ) {}
  get map(): ScalarMap | undefined {
    if (this.mapped === null) this.mapped = scalarMap(this.text, this.node);
    return this.mapped;
  }
  /** File range of value range [from, to): exact when mappable, else the whole scalar (not fixable). */
  range(from: number, to: number): { offset: number; length: number; exact: boolean } {
    const m = this.map;
    const r = m ? sourceRange(m, from, to) : undefined;
    if (r) return { ...r, exact: true };
    const [s, e] = this.node.range!;
    return { offset: s, length: e - s, exact: false };
  }
}

export const UNCERTAIN = "the scalar's escapes or line folding make the exact position uncertain";

/** An occurrence of an `env` rule's name; decided for the whole file at the end (see envConsistency.ts). */
export interface EnvOccurrence {
  rule: RenameRule;
  scalar: StringScalar;
  from: number;
  to: number;
  /**
   * Where the name is: an env key, a `$NAME` in a run script, `env.NAME` in an expression, or
   * any other whole-word use in a run script (`NAME=…`, `export NAME`, `%NAME%`, …), which is never fixed.
   */
  where: 'key' | 'shell' | 'expression' | 'other';
  /** For `shell`: how the read looks before and after the rename (`$NAME`, `%NAME%`, `os.environ['NAME']`, …). */
  shown?: [string, string];
  /** For env keys read by name by something outside the file: "the action `x`", "the container `y`". */
  consumer?: string;
}

/** Something in the file that forbids renaming an `env` rule's name automatically (see envConsistency.ts). */
export interface EnvBlock {
  rule: RenameRule;
  /** File offset the reason points at (its line is quoted in the message). */
  offset: number;
  /** The reason, worded to follow "on line N". */
  why: string;
}

export class Reporter {
  readonly findings: Finding[] = [];
  readonly envOccurrences: EnvOccurrence[] = [];
  readonly envBlocks: EnvBlock[] = [];
  constructor(readonly lines: LineIndex) {}

  add(rule: string, severity: Severity, message: string, offset: number, length: number, replacement?: string): void {
    const a = this.lines.at(offset);
    const b = this.lines.at(offset + length);
    const f: Finding = { rule, severity, message, offset, length, line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
    if (replacement !== undefined) f.replacement = replacement;
    this.findings.push(f);
  }

  /** A rename: an error with a fix when the range is exact, else a warning saying why it is not fixed. */
  rename(rule: string, message: string, s: StringScalar, from: number, to: number, replacement: string, blocked?: string): void {
    const r = s.range(from, to);
    const why = blocked ?? (r.exact ? undefined : UNCERTAIN);
    if (why) this.add(rule, 'warning', `${message} (not fixed automatically: ${why})`, r.offset, r.length);
    else this.add(rule, 'error', message, r.offset, r.length, replacement);
  }

  /** A warning; its suggestion (an edit not applied by a plain fix) only when the range is exact. */
  note(rule: string, message: string, s: StringScalar, from: number, to: number, suggestion?: Finding['suggestion']): void {
    const r = s.range(from, to);
    this.add(rule, 'warning', message, r.offset, r.length);
    if (suggestion && r.exact) this.findings[this.findings.length - 1]!.suggestion = suggestion;
  }
}
