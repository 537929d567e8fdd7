// The Relay view: running state, forward set-ups, channels with counts, each holding its live
// deliveries (newest first, paged). A change of the relay refreshes only the rows it touched
// (RelayRows): a new delivery its channel, a forward result its row, a new state its row.
import * as vscode from 'vscode';
import { groupByChannel, relayRow, RelayRows, type RelayRowsInput, type RelayTreeNode } from '../../core/tree';
import type { RelayManager } from './relayManager';
import { toTreeItem } from '../ui/treeItem';

export class RelayTree implements vscode.TreeDataProvider<RelayTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RelayTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;
  private readonly rows = new RelayRows((row) => this.changed.fire(row));
  shown = 100;

  constructor(
    private readonly relay: RelayManager,
    private readonly extensionUri: vscode.Uri,
  ) {
    this.sub = relay.onDidChange(() => this.rows.update(this.current()));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  showMore(): void {
    this.shown += 100;
    this.rows.update(this.current());
  }

  getTreeItem(node: RelayTreeNode): vscode.TreeItem {
    return toTreeItem(relayRow(node), this.extensionUri);
  }

  getChildren(node?: RelayTreeNode): RelayTreeNode[] {
    if (node) return [...this.rows.childrenOf(node)];
    void this.relay.probe(); // once per session; connects to a relay already running on the port
    return [...this.rows.update(this.current(), true)];
  }

  /** The rows the relay's state asks for now. */
  private current(): RelayRowsInput {
    const r = this.relay;
    if (r.state === 'stopped' && !r.remoteLabel) return { top: [], children: new Map() }; // the welcome view offers "Start Relay" and "Connect to Relay…"
    const nodes: RelayTreeNode[] = [{ kind: 'relayState', state: r.state, port: r.port, detail: r.detail, remote: r.remoteLabel, forwardTo: r.forwardTo }];
    if (r.state !== 'running') return { top: nodes, children: new Map() };
    for (const session of r.sessions()) nodes.push({ kind: 'relayForwarding', session });
    // Rows grouped by channel (the admin token sees every channel's deliveries).
    const groups = groupByChannel(r.status?.channels ?? [], r.live.newestFirst(), this.shown);
    return { top: [...nodes, ...groups.top], children: groups.children };
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
