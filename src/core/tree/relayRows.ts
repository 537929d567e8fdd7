// The Relay view's rows kept between refreshes, so a change refreshes only the rows it touched:
// each row keeps its object while its key (state, a set-up, a channel, a delivery's seq, a "more"
// row) stays, and takes the new content in place. `update` tells `fire` which rows changed: the
// whole view (undefined) when the top-level list changed, a channel when its list of deliveries
// changed, a row when only its own content did. VS Code refreshes rows by object, so the objects
// it holds must stay the ones this returns.
import type { RelayTreeNode } from './relayModel';

export interface RelayRowsInput {
  top: readonly RelayTreeNode[];
  /** Each grouped channel's rows, by channel name. */
  children: ReadonlyMap<string, readonly RelayTreeNode[]>;
}

export class RelayRows {
  private top: RelayTreeNode[] = [];
  private children = new Map<string, RelayTreeNode[]>();
  private readonly byKey = new Map<string, RelayTreeNode>();

  /** `fire(undefined)`: the top-level rows changed; `fire(row)`: that row (and its children) changed. */
  constructor(private readonly fire: (row: RelayTreeNode | undefined) => void) {}

  get rows(): readonly RelayTreeNode[] {
    return this.top;
  }

  childrenOf(row: RelayTreeNode): readonly RelayTreeNode[] {
    return row.kind === 'relayChannel' ? (this.children.get(row.channel.name) ?? []) : [];
  }

  /** Takes the rows now; fires the ones that changed (nothing when none did). `quiet`: fire nothing (VS Code is reading the rows already). */
  update(next: RelayRowsInput, quiet = false): readonly RelayTreeNode[] {
    const changed = new Set<RelayTreeNode>();
    const seen = new Set<string>();
    const keep = (node: RelayTreeNode): RelayTreeNode => {
      const key = keyOf(node);
      seen.add(key);
      const old = this.byKey.get(key);
      if (!old) {
        this.byKey.set(key, node);
        return node;
      }
      if (JSON.stringify(old) !== JSON.stringify(node)) {
        for (const k of Object.keys(old)) delete (old as unknown as Record<string, unknown>)[k];
        Object.assign(old, node);
        changed.add(old);
      }
      return old;
    };
    const top = next.top.map(keep);
    const rootChanged = !sameKeys(this.top, top);
    const children = new Map<string, RelayTreeNode[]>();
    for (const [name, rows] of next.children) {
      const kept = rows.map(keep);
      const channel = this.byKey.get(`channel:${name}`);
      if (channel && !sameKeys(this.children.get(name) ?? [], kept)) changed.add(channel);
      children.set(name, kept);
    }
    for (const [name, rows] of this.children) {
      const channel = this.byKey.get(`channel:${name}`);
      if (!children.has(name) && rows.length > 0 && channel) changed.add(channel);
    }
    for (const key of [...this.byKey.keys()]) if (!seen.has(key)) this.byKey.delete(key);
    this.top = top;
    this.children = children;
    if (quiet) return top;
    if (rootChanged) this.fire(undefined);
    else for (const row of outermost(changed, children)) this.fire(row);
    return top;
  }
}

/** A row's identity across refreshes. */
export function keyOf(node: RelayTreeNode): string {
  switch (node.kind) {
    case 'relayState':
      return 'state';
    case 'relayForwarding':
      return `forwarding:${node.session.relay}#${node.session.channel}`;
    case 'relayChannel':
      // A channel that gains (or loses) rows becomes expandable: the view refreshes from the top.
      return `channel:${node.channel.name}${node.grouped ? '' : ':empty'}`;
    case 'relayDelivery':
      return `delivery:${node.delivery.seq}`;
    case 'relayMore':
      return `more:${node.channel ?? ''}`;
  }
}

function sameKeys(a: readonly RelayTreeNode[], b: readonly RelayTreeNode[]): boolean {
  return a.length === b.length && a.every((n, i) => keyOf(n) === keyOf(b[i]!));
}

/** A changed channel refreshes its rows too: they are not fired again. */
function outermost(changed: Set<RelayTreeNode>, children: Map<string, RelayTreeNode[]>): RelayTreeNode[] {
  const covered = new Set<RelayTreeNode>();
  for (const row of changed) if (row.kind === 'relayChannel') for (const child of children.get(row.channel.name) ?? []) covered.add(child);
  return [...changed].filter((row) => !covered.has(row));
}
