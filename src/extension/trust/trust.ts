// Workspace trust at run time. In Restricted Mode the linter, its quick fixes and the port report
// work; everything that signs in, runs or talks to the relay, forwards, sends or runs the runner
// says why it is off and offers "Manage Workspace Trust". Granting trust turns them on at once:
// every check reads vscode.workspace.isTrusted when the command runs, and what activation skipped
// (restoring the relay connection) runs on onDidGrantWorkspaceTrust. No reload.
import * as vscode from 'vscode';
import { UserError } from '../errors';
import { EXTENSION_ID } from '../ids';
import { needsTrust, restrictedMessage } from './trustTable';

export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';
export const MANAGE_TRUST_ACTION = { title: 'Manage Workspace Trust', command: MANAGE_TRUST_COMMAND } as const;

/** Throws the Restricted Mode message (a UserError: a warning with "Manage Workspace Trust") when `id` needs trust and there is none. */
export function checkTrust(id: string, title: string = commandTitle(id)): void {
  if (vscode.workspace.isTrusted || !needsTrust(id)) return;
  throw new UserError(restrictedMessage(id, title), [MANAGE_TRUST_ACTION]);
}

/** Runs `fn` now when the workspace is trusted, else once trust is granted. */
export function whenTrusted(context: vscode.ExtensionContext, fn: () => void): void {
  if (vscode.workspace.isTrusted) return fn();
  const sub = vscode.workspace.onDidGrantWorkspaceTrust(() => {
    sub.dispose();
    fn();
  });
  context.subscriptions.push(sub);
}

let titles: Map<string, string> | undefined;
/** The palette title of a command, from the manifest. */
function commandTitle(id: string): string {
  const commands = (
    vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes?: { commands?: { command: string; title: string }[] } } | undefined
  )?.contributes?.commands;
  titles ??= new Map((commands ?? []).map((c) => [c.command, c.title]));
  return titles.get(id) ?? id;
}
