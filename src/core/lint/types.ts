// Shared types of the workflow port linter (docs/architecture.md, "Linter").

export type Severity = 'error' | 'warning';

export interface Finding {
  rule: string;
  severity: Severity;
  message: string;
  /** UTF-16 offset into the linted text, and length of the range. */
  offset: number;
  length: number;
  /** 1-based; endColumn is the column just past the last character of the range. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** Text that replaces [offset, offset + length). Absent: a warning without autofix. */
  replacement?: string;
  /**
   * An edit of the same range that is offered but never applied by a plain fix (applyFixes without
   * `suggestions`): e.g. the version named in the comment after a SHA pin. The editor offers it as a
   * quick fix titled `title`; the CLI applies it with --fix-pinned.
   */
  /** An editor-only fix of several edits (e.g. move an untrusted value into `env:`); checked to parse before it is offered. */
  quickFix?: QuickFix;
  suggestion?: {
    title: string;
    replacement: string;
    /** The edit's own range when it is wider than the finding's (e.g. it also drops a comment); default the finding's. */
    offset?: number;
    length?: number;
  };
}

/** One edit of the text: [offset, offset + length) becomes `replacement`. */
export interface Edit {
  offset: number;
  length: number;
  replacement: string;
}

/** A fix of several edits that only the editor offers (a quick fix titled `title`); --fix and Fix All never apply it. */
export interface QuickFix {
  title: string;
  edits: Edit[];
}

export interface FixOptions {
  /** Also apply the findings' suggestions (where the finding has no replacement). */
  suggestions?: boolean;
}

/** One rename, as data. `kind` says where `from` is looked for. */
export interface RenameRule {
  /** Rule id shown in reports, e.g. `action-script`. */
  id: string;
  /**
   * - `action`:  `uses:` values `from@REF` or `from/<path>@REF` (owner/repo[/path], case-insensitive).
   * - `context`: property chains in expressions, e.g. `github.event` (roots only: `github.event_name` is another name).
   * - `secret`:  `secrets.NAME` in expressions.
   * - `env`:     env keys, `$NAME` / `${NAME}` / `$env:NAME` in run scripts and `env.NAME` in expressions, renamed together.
   */
  kind: 'action' | 'context' | 'secret' | 'env';
  from: string;
  to: string;
  /** Shown in the finding; defaults to a generated sentence. */
  description?: string;
  /**
   * `env` rules: programs that read the variable from the environment without the file naming it
   * (e.g. `gh`). A run script that calls one and does not name the variable reads it by this name.
   */
  readBy?: readonly string[];
}

/** An extra mapping from `.service-hooks.json` (`lint.rules`), validated by config.ts. */
export type ExtraRule = Omit<RenameRule, 'id'> & { id?: string };

export interface LintOptions {
  /** Extra mappings, checked after the built-in table. */
  rules?: readonly ExtraRule[];
}
