// TreeRow (pure view model) → vscode.TreeItem.
import * as vscode from 'vscode';
import type { TreeRow } from '../../core/tree';

const COLLAPSE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export function toTreeItem(row: TreeRow, extensionUri: vscode.Uri): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, COLLAPSE[row.collapsible]);
  item.id = row.id;
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.contextValue = row.contextValue;
  if (row.icon?.id === 'webhook') {
    item.iconPath = {
      light: vscode.Uri.joinPath(extensionUri, 'media', 'light', 'webhook.svg'),
      dark: vscode.Uri.joinPath(extensionUri, 'media', 'dark', 'webhook.svg'),
    };
  } else if (row.icon) {
    item.iconPath = new vscode.ThemeIcon(row.icon.id, row.icon.color ? new vscode.ThemeColor(row.icon.color) : undefined);
  }
  if (row.command) item.command = row.command;
  return item;
}
