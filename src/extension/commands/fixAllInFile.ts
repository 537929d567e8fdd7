// Fix All Workflow Names in This File: every fixable finding of one workflow file as one edit,
// after a confirmation that counts them (`{ confirm: true }` as second argument skips it). From the
// code action "Fix all workflow names in this file", or the palette while a workflow file is active.
import * as vscode from 'vscode';
import { loadLinter } from '../deps';
import { Cancelled, UserError } from '../errors';
import { COMMANDS, SETTINGS } from '../ids';
import { lintRulesFor } from '../lint/lintRules';
import { asArgs } from './pickers';
import { isWorkflowDocument } from '../lint/workflowFiles';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.fixAllInFile,
  async run(_ctx, arg, options) {
    const uri = arg instanceof vscode.Uri ? arg : undefined;
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    if (!doc) throw new UserError('Open a workflow file first.');
    const name = vscode.workspace.asRelativePath(doc.uri);
    // Findings cached for a file the globs no longer match must not be applied (the setting may have changed).
    if (!isWorkflowDocument(doc)) throw new UserError(`${name} is not a workflow file (${SETTINGS.workflowGlobs}).`);
    const [{ lintText, applyFixes }, rules] = await Promise.all([loadLinter(), lintRulesFor(doc.uri)]);
    const text = doc.getText();
    const findings = lintText(text, { rules }).filter((f) => f.replacement !== undefined);
    const fixed = applyFixes(text, findings);
    if (findings.length === 0 || fixed === text) {
      void vscode.window.showInformationMessage(`No workflow names to fix in ${name}.`);
      return { fixed: 0 };
    }
    if (asArgs<{ confirm: boolean }>(options).confirm !== true) {
      const label = 'Fix';
      const ok = await vscode.window.showWarningMessage(
        `Fix ${findings.length} workflow name${findings.length === 1 ? '' : 's'} in ${name}?`,
        { modal: true, detail: 'One edit; Undo reverts it.' },
        label,
      );
      if (ok !== label) throw new Cancelled();
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(text.length)), fixed);
    await vscode.workspace.applyEdit(edit);
    return { fixed: findings.length };
  },
};
export default command;
