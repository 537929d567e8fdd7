// Extra rename rules for the editor's linter: `lint.rules` of the workspace folder's
// .service-hooks.json, the same file and format `service-hooks lint` reads. Read lazily once per
// folder, re-read when the file changes. A broken file is reported and ignored, never fatal.
import * as vscode from 'vscode';
import type { ExtraRule } from '../../core/lint';
import { CONFIG_FILE } from '../../core/lint/config';
import { log } from '../log';

export const LINT_CONFIG_FILE = CONFIG_FILE;
const cache = new Map<string, Promise<ExtraRule[]>>();

/** The extra rules that apply to the document at `uri` (none outside a workspace folder). */
export function lintRulesFor(uri: vscode.Uri): Promise<ExtraRule[]> {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return Promise.resolve([]);
  const key = folder.uri.toString();
  let rules = cache.get(key);
  if (!rules) {
    rules = readRules(vscode.Uri.joinPath(folder.uri, LINT_CONFIG_FILE));
    cache.set(key, rules);
  }
  return rules;
}

async function readRules(file: vscode.Uri): Promise<ExtraRule[]> {
  let bytes: Uint8Array;
  try {
    bytes = await vscode.workspace.fs.readFile(file);
  } catch {
    return []; // no config file: the built-in table only
  }
  const name = vscode.workspace.asRelativePath(file);
  try {
    const { parseConfigText } = await import('../../core/lint/config');
    return parseConfigText(new TextDecoder().decode(bytes), name).rules;
  } catch (err) {
    const message = `${(err as Error).message}. Its extra lint rules are ignored until it is fixed.`;
    log().warn(message);
    void vscode.window.showWarningMessage(message);
    return [];
  }
}

/** Forgets the cached rules when a .service-hooks.json changes, then calls `onChange`. */
export function watchLintRules(onChange: () => void): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${LINT_CONFIG_FILE}`);
  const reset = () => {
    cache.clear();
    onChange();
  };
  return vscode.Disposable.from(watcher, watcher.onDidChange(reset), watcher.onDidCreate(reset), watcher.onDidDelete(reset));
}
