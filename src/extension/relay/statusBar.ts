// The relay's status bar item: `Relay :8788` for a local relay, `relay.example.com ⇄ localhost:3000`
// plus the state for a remote one. The text comes from the pure model in src/core/tree. Both follow
// the connection's state machine (RelayManager subscribes them), as do the context keys below.
import * as vscode from 'vscode';
import { relayStatusBar, type RelayState, type StatusBarInput } from '../../core/tree';
import { CONTEXT } from '../ids';

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

/** The context keys the commands' menus and enablement read: a relay is running (or connecting), it is a remote one. */
export function setRelayContext(state: RelayState, remote: boolean): void {
  void vscode.commands.executeCommand('setContext', CONTEXT.relayRunning, state === 'running' || state === 'connecting');
  void vscode.commands.executeCommand('setContext', CONTEXT.relayRemote, remote);
}
