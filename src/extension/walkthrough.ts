// Getting Started (contributes.walkthroughs): opened once after install, never again by itself.
// Its steps complete on VS Code's own events (package.json completionEvents): a command ran, or a
// context key the extension already keeps (serviceHooks.signedIn, relayRunning, relayRemote).
import * as vscode from 'vscode';
import { EXTENSION_ID, WALKTHROUGH_ID, WALKTHROUGH_SHOWN_KEY } from './ids';
import type { SerialState } from './storage/serialState';

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
  if (globalState.get<boolean>(WALKTHROUGH_SHOWN_KEY)) return;
  void globalState.update(WALKTHROUGH_SHOWN_KEY, true);
  if (wanted(context)) void vscode.commands.executeCommand('workbench.action.openWalkthrough', `${EXTENSION_ID}#${WALKTHROUGH_ID}`, false);
}
