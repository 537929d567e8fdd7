// The editor side of the suite: running commands, and watching the Relay view's manager.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { RelayTreeNode } from '../../../src/core/tree';
import type { ServiceHooksApi } from '../../../src/extension/activate';
import { EXTENSION_ID } from '../../../src/extension/ids';

/** The extension's API, once it is activated (activating it if nothing has yet). */
export async function activated(): Promise<ServiceHooksApi> {
  const ext = vscode.extensions.getExtension<ServiceHooksApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** Runs one of the editor's commands. */
export const run = <T = unknown>(id: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(id, ...args);

/** The activated extension's relay manager, the Relay view's rows, and a wait for a state of the manager. */
export function relayView(api: () => ServiceHooksApi): {
  manager: () => ServiceHooksApi['commandContext']['services']['relay'];
  rows: () => RelayTreeNode[];
  when: (check: () => boolean) => Promise<void>;
} {
  const manager = () => api().commandContext.services.relay;
  return {
    manager,
    rows: () => api().commandContext.relayTree.getChildren(),
    /** Resolves once `check` holds, re-checked on each change of the relay manager. */
    when: (check) =>
      new Promise<void>((resolve) => {
        if (check()) return resolve();
        const sub = manager().onDidChange(() => {
          if (!check()) return;
          sub.dispose();
          resolve();
        });
      }),
  };
}
