// The Relay view: running state, channels with counts, live deliveries (newest first, paged).
import * as vscode from 'vscode';
import { relayRow, type RelayTreeNode } from '../core/tree';
import type { RelayManager } from './relayManager';
import { toTreeItem } from './treeItem';

export class RelayTree implements vscode.TreeDataProvider<RelayTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RelayTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;
  shown = 100;

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
    if (node) return [];
    void this.relay.probe(); // once per session; connects to a relay already running on the port
    const r = this.relay;
    if (r.state === 'stopped' && !r.remoteLabel) return []; // the welcome view offers "Start Relay" and "Connect to Relay…"
    const nodes: RelayTreeNode[] = [{ kind: 'relayState', state: r.state, port: r.port, detail: r.detail, remote: r.remoteLabel, forwardTo: r.forwardTo }];
    if (r.state !== 'running') return nodes;
    for (const session of r.sessions()) nodes.push({ kind: 'relayForwarding', session });
    for (const channel of r.status?.channels ?? []) nodes.push({ kind: 'relayChannel', channel });
    const live = r.live.newestFirst(this.shown);
    for (const delivery of live) nodes.push({ kind: 'relayDelivery', delivery });
    if (r.live.size > live.length) nodes.push({ kind: 'relayMore', shown: live.length, total: r.live.size });
    return nodes;
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
