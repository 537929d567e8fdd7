import type * as vscode from 'vscode';

export function activate(_context: vscode.ExtensionContext): void {
  // Wired up by the extension issue.
}

export function deactivate(): void {}
