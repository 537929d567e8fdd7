// The relay's status bar item: `Relay :8788` for a local relay, `relay.example.com ⇄ localhost:3000`
// plus the state for a remote one. The text comes from the pure model in src/core/tree.
import * as vscode from 'vscode';
import { relayStatusBar, type StatusBarInput } from '../../core/tree';

export class RelayStatusBar implements vscode.Disposable {
  private item: vscode.StatusBarItem | undefined;

  show(input: StatusBarInput): void {
    if (!this.item) {
      this.item = vscode.window.createStatusBarItem('serviceHooks.relay', vscode.StatusBarAlignment.Left, 10);
      this.item.name = 'Service Relay';
    }
    const model = relayStatusBar(input);
    this.item.text = model.text;
    this.item.tooltip = model.tooltip;
    this.item.command = model.command;
    this.item.show();
  }

  /** The item's current text and tooltip (for the tests). */
  get current(): { text: string; tooltip: string } | undefined {
    return this.item ? { text: this.item.text, tooltip: String(this.item.tooltip ?? '') } : undefined;
  }

  dispose(): void {
    this.item?.dispose();
  }
}
