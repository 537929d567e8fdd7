// The workflow port linter (docs/architecture.md, "Linter"): pure functions, no fs, no vscode.
export { lintText } from './lint';
export { applyFixes, applyFixesChecked, fixTitle, type CheckedFix } from './fix';
export { BUILTIN_RULES, NOTE_RULES, describeRule, ruleTable } from './rules';
export type { Edit, QuickFix, Finding, FixOptions, Severity, RenameRule, ExtraRule, LintOptions } from './types';
export { reportHtml } from './reportHtml';
export { portReport, summarize, type ReportFile, type ReportOptions, type ReportSummary } from './report';
