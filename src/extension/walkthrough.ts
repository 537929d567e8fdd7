// Getting Started (contributes.walkthroughs): opened once after install, never again by itself,
// and the "signed in" context key its first step completes on, kept from the token store whether
// or not the Webhooks view is visible (the view sets it only when it renders).
import * as vscode from 'vscode';
import { settings } from './config';
import { CONTEXT, EXTENSION_ID, SECRET_KEY, SETTINGS, WALKTHROUGH_ID, WALKTHROUGH_SHOWN_KEY } from './ids';
import type { SerialState } from './serialState';
import { tokenKey } from './tokenStore';

/**
 * Whether to open it: not in extension tests, and not when the user turned VS Code's own
 * walkthrough-on-install or start-up editor off.
 */
function wanted(context: vscode.ExtensionContext): boolean {
  if (context.extensionMode === vscode.ExtensionMode.Test) return false;
  const workbench = vscode.workspace.getConfiguration('workbench');
  return workbench.get<boolean>('welcomePage.walkthroughs.openOnInstall', true) && workbench.get<string>('startupEditor') !== 'none';
}

export function registerWalkthrough(context: vscode.ExtensionContext, globalState: SerialState): void {
  const update = async () => {
    // Read past TokenStore's cache: filling it here could race a sign-in's store (a stale miss kept).
    const signedIn = !!(await context.secrets.get(tokenKey(settings().baseUrl)));
    await vscode.commands.executeCommand('setContext', CONTEXT.signedIn, signedIn);
  };
  context.subscriptions.push(
    context.secrets.onDidChange((e) => e.key.startsWith(SECRET_KEY) && void update()),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SETTINGS.baseUrl) && void update()),
  );
  void update();
  if (globalState.get<boolean>(WALKTHROUGH_SHOWN_KEY)) return;
  void globalState.update(WALKTHROUGH_SHOWN_KEY, true);
  if (wanted(context)) void vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${WALKTHROUGH_ID}`, false);
}
