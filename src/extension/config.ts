// The settings of the moment, from VS Code's configuration (readSettings.ts holds the keys).
import * as vscode from 'vscode';
import { readSettings, type Settings } from './readSettings';

export type { Settings };

export function settings(): Settings {
  return readSettings(vscode.workspace.getConfiguration());
}
