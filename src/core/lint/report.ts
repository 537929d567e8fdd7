// The port report (`service-hooks lint --report`, the editor's "Port Workflows…"): Markdown that
// says, for a whole repository, what a fix will rename (count per rule and file), what needs a
// decision (every warning with its reason and line, grouped by kind) and what is already portable.
import { NOTE_RULES, describeRule } from './rules';
import type { Finding, RenameRule } from './types';

export interface ReportFile {
  /** As shown (relative to the repository root where possible). */
  file: string;
  findings: readonly Finding[];
  /** Why the file could not be read (it is then listed as such, never as portable). */
  unreadable?: string;
}

export interface ReportOptions {
  /** The rename table in use (built-in plus extra rules), for the rules' descriptions. */
  rules: readonly RenameRule[];
  /** Link target of a line of a file (already URI-encoded). */
  link(file: string, line: number): string;
  /** How the reader applies the renames, e.g. "`service-hooks lint --fix`" or "Fix All". */
  fixWith: string;
  /** How the reader applies the suggestions, e.g. "`--fix-pinned`" or "the quick fix". */
  suggestWith: string;
}

export interface ReportSummary {
  files: number;
  renames: number;
  renameFiles: number;
  decisions: number;
  decisionFiles: number;
  portable: number;
  unreadable: number;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const text = (s: string) => s.replace(/([\\[\]<>*_])/g, '\\$1');
/** A file name as Markdown text: every character Markdown could read as syntax is escaped (`&semi;`, `` `x` ``, `*`, `_`, `~`). */
const name = (s: string) => s.replace(/([\\[\]<>*_`&~|])/g, '\\$1');
const isPortable = (f: ReportFile) => f.findings.length === 0 && f.unreadable === undefined;
const isRename = (f: Finding) => f.replacement !== undefined;

export function summarize(files: readonly ReportFile[]): ReportSummary {
  const renames = files.map((f) => f.findings.filter(isRename).length);
  const decisions = files.map((f) => f.findings.filter((x) => !isRename(x)).length);
  return {
    files: files.length,
    renames: renames.reduce((a, b) => a + b, 0),
    renameFiles: renames.filter((n) => n > 0).length,
    decisions: decisions.reduce((a, b) => a + b, 0),
    decisionFiles: decisions.filter((n) => n > 0).length,
    portable: files.filter(isPortable).length,
    unreadable: files.filter((f) => f.unreadable !== undefined).length,
  };
}

function describe(rule: string, rules: readonly RenameRule[]): string {
  const r = rules.find((x) => x.id === rule);
  return r ? describeRule(r) : (NOTE_RULES.find((x) => x.id === rule)?.description ?? rule);
}

function renameSection(files: readonly ReportFile[], o: ReportOptions): string[] {
  const byRule = new Map<string, { renames: number; files: Set<string> }>();
  const byFile: string[] = [];
  for (const f of files) {
    const renames = f.findings.filter(isRename);
    if (renames.length === 0) continue;
    const counts = new Map<string, number>();
    for (const x of renames) {
      counts.set(x.rule, (counts.get(x.rule) ?? 0) + 1);
      const r = byRule.get(x.rule) ?? { renames: 0, files: new Set<string>() };
      r.renames++;
      r.files.add(f.file);
      byRule.set(x.rule, r);
    }
    const rules = [...counts]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([rule, n]) => `\`${rule}\` ${n}`)
      .join(', ');
    byFile.push(`| [${name(f.file)}](${o.link(f.file, renames[0]!.line)}) | ${renames.length} | ${rules} |`);
  }
  const out = ['## Renamed by a fix', ''];
  if (byRule.size === 0) return [...out, 'Nothing to rename.', ''];
  out.push(`Applied by ${o.fixWith}: exact renames; nothing else in the files changes.`, '');
  out.push('| Rule | What | Renames | Files |', '| --- | --- | ---: | ---: |');
  for (const [rule, r] of [...byRule].sort(([a], [b]) => a.localeCompare(b)))
    out.push(`| \`${rule}\` | ${cell(text(describe(rule, o.rules)))} | ${r.renames} | ${r.files.size} |`);
  out.push('', '| File | Renames | Per rule |', '| --- | ---: | --- |', ...byFile);
  return [...out, ''];
}

function decisionSection(files: readonly ReportFile[], o: ReportOptions): string[] {
  const groups = new Map<string, { file: string; f: Finding }[]>();
  for (const file of files)
    for (const f of file.findings.filter((x) => !isRename(x))) groups.set(f.rule, [...(groups.get(f.rule) ?? []), { file: file.file, f }]);
  const out = ['## Needs a decision', ''];
  if (groups.size === 0) return [...out, 'Nothing: every finding has an exact fix.', ''];
  for (const [rule, items] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`### \`${rule}\` (${items.length})`, '', text(describe(rule, o.rules)), '');
    for (const { file, f } of items) {
      const where = `[${name(file)}:${f.line}](${o.link(file, f.line)})`;
      const hint = f.suggestion ? ` Suggested: ${text(f.suggestion.title)} (${o.suggestWith}).` : '';
      out.push(`- ${where}: ${f.message}.${hint}`);
    }
    out.push('');
  }
  return out;
}

export function portReport(files: readonly ReportFile[], o: ReportOptions): string {
  const s = summarize(files);
  const portable = files.filter(isPortable);
  const unreadable = files.filter((f) => f.unreadable !== undefined);
  const out = [
    '# Workflow port report',
    '',
    `${s.files} file(s) checked: ${s.renames} rename(s) in ${s.renameFiles} file(s) are applied by ${o.fixWith}; ` +
      `${s.decisions} finding(s) in ${s.decisionFiles} file(s) need a decision; ${s.portable} file(s) are already portable` +
      (s.unreadable > 0 ? `; ${s.unreadable} file(s) could not be read.` : '.'),
    '',
    ...renameSection(files, o),
    ...decisionSection(files, o),
    '## Already portable',
    '',
    ...(portable.length === 0 ? ['No file is portable as it is.'] : portable.map((f) => `- [${name(f.file)}](${o.link(f.file, 1)})`)),
    '',
    ...(unreadable.length === 0 ? [] : ['## Could not be read', '', ...unreadable.map((f) => `- ${name(f.file)}: ${text(f.unreadable!)}`), '']),
  ];
  return out.join('\n');
}
