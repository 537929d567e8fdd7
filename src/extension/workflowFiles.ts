// The workflow files and actions the linter covers in the workspace: every file matched by
// serviceHooks.lint.workflowGlobs, outside node_modules (findFiles skips .git through files.exclude).
import * as vscode from 'vscode';
import { settings } from './config';

export async function workflowUris(): Promise<vscode.Uri[]> {
  const files = new Map<string, vscode.Uri>();
  for (const glob of settings().workflowGlobs) {
    for (const uri of await vscode.workspace.findFiles(glob, '**/node_modules/**')) files.set(uri.toString(), uri);
  }
  return [...files.values()].sort((a, b) => a.fsPath.localeCompare(b.fsPath));
}
