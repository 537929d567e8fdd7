// The workflow files the linter covers (serviceHooks.lint.workflowGlobs), and the context key that
// shows "Fix All Workflow Names in This File" in the palette while one is the active editor.
import * as vscode from 'vscode';
import { settings } from '../config';
import { CONTEXT, SETTINGS } from '../ids';

/** Every file matched by serviceHooks.lint.workflowGlobs, outside node_modules (findFiles skips .git through files.exclude). */
export async function workflowUris(): Promise<vscode.Uri[]> {
  const files = new Map<string, vscode.Uri>();
  for (const glob of settings().workflowGlobs) {
    for (const uri of await vscode.workspace.findFiles(glob, '**/node_modules/**')) files.set(uri.toString(), uri);
  }
  return [...files.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}

/** Local files, new files, and any file of a workspace folder: a virtual workspace's (vscode.dev-style, no local files) too. */
export function isWorkflowDocument(doc: vscode.TextDocument): boolean {
  const local = doc.uri.scheme === 'file' || doc.uri.scheme === 'untitled' || doc.uri.scheme === 'vscode-remote';
  if (!local && !vscode.workspace.getWorkspaceFolder(doc.uri)) return false;
  return settings().workflowGlobs.some((pattern) => vscode.languages.match({ pattern }, doc) > 0);
}

export function registerWorkflowContext(context: vscode.ExtensionContext): void {
  const update = () => {
    const doc = vscode.window.activeTextEditor?.document;
    void vscode.commands.executeCommand('setContext', CONTEXT.workflowFileActive, doc !== undefined && isWorkflowDocument(doc));
  };
  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SETTINGS.workflowGlobs) && update()),
  );
  update();
}
