// Fix All Workflow Names in Workspace: one WorkspaceEdit over every file matched by the globs.
import * as vscode from 'vscode';
import { loadLinter } from '../deps';
import { COMMANDS } from '../ids';
import { lintRulesFor } from '../lintRules';
import { workflowUris } from '../workflowFiles';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.fixAllWorkflowNames,
  async run() {
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
    if (changed.length > 0) await vscode.workspace.applyEdit(edit);
    void vscode.window.showInformationMessage(
      changed.length ? `Fixed ${fixes} name(s) in ${changed.length} workflow file(s). Review and save.` : `No workflow names to fix in ${uris.length} file(s).`,
    );
    return { files: uris.length, changed, fixes };
  },
};
export default command;
