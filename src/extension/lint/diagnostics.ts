// Workflow diagnostics: the core linter on workflow YAML and composite actions (debounced), a quick
// fix per finding with a fix or a suggestion, and "Fix all in this file" (fixes only, never suggestions).
import * as vscode from 'vscode';
import { isWorkflowDocument } from './workflowFiles';
import type { LintFinding } from '../contracts';
import { loadLinter } from '../deps';
import { COMMANDS, SETTINGS } from '../ids';
import { lintRulesFor, watchLintRules } from './lintRules';

export const DEBOUNCE_MS = 300;
export const DIAGNOSTIC_SOURCE = 'service-hooks';
const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append('serviceHooks');

export class WorkflowDiagnostics implements vscode.CodeActionProvider, vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('serviceHooks.workflows');
  private readonly findings = new Map<string, { version: number; findings: LintFinding[]; refused: Set<LintFinding>; title(r: string): string }>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  isWorkflow(doc: vscode.TextDocument): boolean {
    return isWorkflowDocument(doc);
  }

  schedule(doc: vscode.TextDocument, delay = DEBOUNCE_MS): void {
    if (!this.isWorkflow(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.lint(doc);
      }, delay),
    );
  }

  async lint(doc: vscode.TextDocument): Promise<LintFinding[]> {
    const [{ lintText, refusedFixes, fixTitle }, rules] = await Promise.all([loadLinter(), lintRulesFor(doc.uri)]);
    if (doc.isClosed) return [];
    const text = doc.getText();
    const findings = lintText(text, { rules });
    // A quick fix is offered only when its edit leaves a file that parses (the fixer's own check).
    const refused = new Set(refusedFixes(text, findings));
    this.findings.set(doc.uri.toString(), { version: doc.version, findings, refused, title: fixTitle });
    this.collection.set(
      doc.uri,
      findings.map((f) => toDiagnostic(doc, f)),
    );
    return findings;
  }

  forget(uri: vscode.Uri): void {
    clearTimeout(this.timers.get(uri.toString()));
    this.findings.delete(uri.toString());
    this.collection.delete(uri);
  }

  provideCodeActions(doc: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const entry = this.findings.get(doc.uri.toString());
    if (!entry || entry.version !== doc.version) return [];
    const actions: vscode.CodeAction[] = [];
    const wantsQuickFix = !context.only || context.only.contains(vscode.CodeActionKind.QuickFix) || vscode.CodeActionKind.QuickFix.contains(context.only);
    if (wantsQuickFix) {
      for (const diag of context.diagnostics) {
        if (diag.source !== DIAGNOSTIC_SOURCE) continue;
        const f = entry.findings.find((x) => (x.replacement !== undefined || x.suggestion) && !entry.refused.has(x) && sameRange(doc, x, diag.range));
        if (f) actions.push(quickFix(doc, f, diag, entry.title));
        // A fix of several edits (untrusted-input: move the value into env:), checked by the linter to parse.
        for (const x of entry.findings.filter((y) => y.quickFix && String(diag.code) === y.rule && sameRange(doc, y, diag.range)))
          actions.push(multiEdit(doc, x, diag));
      }
    }
    const fixable = entry.findings.filter((f) => f.replacement !== undefined);
    const touchesFinding = fixable.some((f) => rangeOf(doc, f).intersection(range) !== undefined);
    if (fixable.length > 0 && (touchesFinding || context.only)) {
      const all = new vscode.CodeAction(
        'Fix all workflow names in this file',
        context.only?.contains(FIX_ALL_KIND) ? FIX_ALL_KIND : vscode.CodeActionKind.QuickFix,
      );
      all.command = { command: COMMANDS.fixAllInFile, title: 'Fix all in this file', arguments: [doc.uri] };
      actions.push(all);
    }
    return actions;
  }

  /** Forgets every cached finding (the globs changed: a file may no longer be a workflow). */
  forgetAll(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.findings.clear();
    this.collection.clear();
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.collection.dispose();
  }
}

/**
 * A finding's fix ("Replace with …", preferred) or its suggestion (e.g. "Use service/script@v8.0.0
 * (from the comment)"), which is offered here but never applied by Fix All.
 */
function quickFix(doc: vscode.TextDocument, f: LintFinding, diag: vscode.Diagnostic, fixTitle: (r: string) => string): vscode.CodeAction {
  const s = f.suggestion;
  const [title, text, range] =
    f.replacement !== undefined
      ? [fixTitle(f.replacement), f.replacement, rangeOf(doc, f)]
      : [s!.title, s!.replacement, new vscode.Range(doc.positionAt(s!.offset ?? f.offset), doc.positionAt((s!.offset ?? f.offset) + (s!.length ?? f.length)))];
  const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
  action.edit = new vscode.WorkspaceEdit();
  action.edit.replace(doc.uri, range, text);
  action.diagnostics = [diag];
  action.isPreferred = f.replacement !== undefined;
  return action;
}

function multiEdit(doc: vscode.TextDocument, f: LintFinding, diag: vscode.Diagnostic): vscode.CodeAction {
  const action = new vscode.CodeAction(f.quickFix!.title, vscode.CodeActionKind.QuickFix);
  action.edit = new vscode.WorkspaceEdit();
  for (const e of f.quickFix!.edits)
    action.edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.replacement);
  action.diagnostics = [diag];
  return action;
}

function rangeOf(doc: vscode.TextDocument, f: LintFinding): vscode.Range {
  return new vscode.Range(doc.positionAt(f.offset), doc.positionAt(f.offset + f.length));
}

function sameRange(doc: vscode.TextDocument, f: LintFinding, r: vscode.Range): boolean {
  return rangeOf(doc, f).isEqual(r);
}

function toDiagnostic(doc: vscode.TextDocument, f: LintFinding): vscode.Diagnostic {
  const d = new vscode.Diagnostic(rangeOf(doc, f), f.message, f.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = f.rule;
  return d;
}

export function registerDiagnostics(context: vscode.ExtensionContext): WorkflowDiagnostics {
  const diags = new WorkflowDiagnostics();
  context.subscriptions.push(
    diags,
    vscode.workspace.onDidOpenTextDocument((d) => diags.schedule(d, 0)),
    vscode.workspace.onDidChangeTextDocument((e) => diags.schedule(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => diags.forget(d.uri)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SETTINGS.workflowGlobs)) return;
      diags.forgetAll();
      for (const d of vscode.workspace.textDocuments) diags.schedule(d, 0);
    }),
    watchLintRules(() => {
      for (const d of vscode.workspace.textDocuments) diags.schedule(d, 0);
    }),
    vscode.languages.registerCodeActionsProvider([{ pattern: '**/*.{yml,yaml}' }, { language: 'yaml' }], diags, {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix, FIX_ALL_KIND],
    }),
  );
  // Documents already open when the extension activates: lint them after activation returns.
  for (const d of vscode.workspace.textDocuments) diags.schedule(d, 0);
  return diags;
}
