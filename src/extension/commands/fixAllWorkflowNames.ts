// Fix All Workflow Names in Workspace: one WorkspaceEdit over every file matched by the globs,
// after a confirmation that counts names and files (`{ confirm: true }` skips it); the changed
// files are saved, and the message says so.
import * as vscode from 'vscode';
import { loadLinter } from '../deps';
import { Cancelled } from '../errors';
import { COMMANDS } from '../ids';
import { lintRulesFor } from '../lint/lintRules';
import { asArgs } from './pickers';
import { withProgress } from '../ui/progress';
import { workflowUris } from '../lint/workflowFiles';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.fixAllWorkflowNames,
  async run(_ctx, arg) {
    const { files, edit, changed, fixes } = await withProgress('Checking the workflow files…', () => planFixes(), { cancellable: true, location: 'window' });
    if (changed.length === 0) {
      void vscode.window.showInformationMessage(`No workflow names to fix in ${files} file(s).`);
      return { files, changed, fixes, saved: false };
    }
    if (asArgs<{ confirm: boolean }>(arg).confirm !== true) {
      const label = 'Fix and Save';
      const detail = `${changed.map((p) => `• ${p}`).join('\n')}\n\nThe files are saved after the edit.`;
      const ok = await vscode.window.showWarningMessage(`Fix ${fixes} workflow name(s) in ${changed.length} file(s)?`, { modal: true, detail }, label);
      if (ok !== label) throw new Cancelled();
    }
    await vscode.workspace.applyEdit(edit);
    for (const uri of edit.entries().map(([u]) => u)) await (await vscode.workspace.openTextDocument(uri)).save();
    void vscode.window.showInformationMessage(`Fixed ${fixes} name(s) in ${changed.length} workflow file(s) and saved them.`);
    return { files, changed, fixes, saved: true };
  },
};
export default command;

async function planFixes(): Promise<{ files: number; edit: vscode.WorkspaceEdit; changed: string[]; fixes: number }> {
  const { lintText, applyFixes } = await loadLinter();
  const uris = await workflowUris();
  const edit = new vscode.WorkspaceEdit();
  const changed: string[] = [];
  let fixes = 0;
  for (const uri of uris) {
    const doc = await vscode.workspace.openTextDocument(uri);
    const text = doc.getText();
    const findings = lintText(text, { rules: await lintRulesFor(uri) }).filter((f) => f.replacement !== undefined);
    if (findings.length === 0) continue;
    const fixed = applyFixes(text, findings);
    if (fixed === text) continue;
    edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(text.length)), fixed);
    changed.push(vscode.workspace.asRelativePath(uri));
    fixes += findings.length;
  }
  return { files: uris.length, edit, changed, fixes };
}
