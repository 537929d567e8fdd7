// The Relay view: running state, forward set-ups, channels with counts, each holding its live
// deliveries (newest first, paged).
import * as vscode from 'vscode';
import { groupByChannel, relayRow, type RelayTreeNode } from '../core/tree';
import type { RelayManager } from './relayManager';
import { toTreeItem } from './treeItem';

export class RelayTree implements vscode.TreeDataProvider<RelayTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RelayTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;
  shown = 100;
  /** The rows of each channel, from the last top-level read. */
  private grouped = new Map<string, RelayTreeNode[]>();

  constructor(
    private readonly relay: RelayManager,
    private readonly extensionUri: vscode.Uri,
  ) {
    this.sub = relay.onDidChange(() => this.changed.fire(undefined));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  showMore(): void {
    this.shown += 100;
    this.changed.fire(undefined);
  }

  getTreeItem(node: RelayTreeNode): vscode.TreeItem {
    return toTreeItem(relayRow(node), this.extensionUri);
  }

  getChildren(node?: RelayTreeNode): RelayTreeNode[] {
    if (node) return node.kind === 'relayChannel' ? (this.grouped.get(node.channel.name) ?? []) : [];
    void this.relay.probe(); // once per session; connects to a relay already running on the port
    const r = this.relay;
    if (r.state === 'stopped' && !r.remoteLabel) return []; // the welcome view offers "Start Relay" and "Connect to Relay…"
    const nodes: RelayTreeNode[] = [{ kind: 'relayState', state: r.state, port: r.port, detail: r.detail, remote: r.remoteLabel, forwardTo: r.forwardTo }];
    if (r.state !== 'running') return nodes;
    for (const session of r.sessions()) nodes.push({ kind: 'relayForwarding', session });
    // Rows grouped by channel (the admin token sees every channel's deliveries).
    const groups = groupByChannel(r.status?.channels ?? [], r.live.newestFirst(), this.shown);
    this.grouped = groups.children;
    return [...nodes, ...groups.top];
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
