// The Relay view's rows grouped by channel: each channel with deliveries holds them (newest first,
// `shown` at most, then a "… older" row); the channel with the newest delivery comes first, so what
// just arrived is at the top. Deliveries of a channel the status does not list stay at the top level.
import type { RelayChannelView, RelayDeliveryView } from './types';
import type { RelayTreeNode } from './relayModel';

export interface RelayGroups {
  /** Channel rows (then ungrouped deliveries and their "… older" row), for the top level. */
  top: RelayTreeNode[];
  /** Each grouped channel's rows, by channel name. */
  children: Map<string, RelayTreeNode[]>;
}

export function groupByChannel(channels: readonly RelayChannelView[], newestFirst: readonly RelayDeliveryView[], shown: number): RelayGroups {
  const byChannel = new Map<string, RelayDeliveryView[]>();
  for (const d of newestFirst) {
    const list = byChannel.get(d.channel);
    if (list) list.push(d);
    else byChannel.set(d.channel, [d]);
  }
  const known = new Set(channels.map((c) => c.name));
  const newest = (name: string) => byChannel.get(name)?.[0]?.seq ?? 0;
  const ordered = [...channels].map((c, i) => ({ c, i })).sort((a, b) => newest(b.c.name) - newest(a.c.name) || a.i - b.i);
  const top: RelayTreeNode[] = [];
  const children = new Map<string, RelayTreeNode[]>();
  for (const { c } of ordered) {
    const own = byChannel.get(c.name) ?? [];
    top.push({ kind: 'relayChannel', channel: c, ...(own.length > 0 ? { grouped: true } : {}) });
    if (own.length > 0) children.set(c.name, page(own, shown, c.name));
  }
  const loose = newestFirst.filter((d) => !known.has(d.channel));
  top.push(...page(loose, shown));
  return { top, children };
}

function page(list: readonly RelayDeliveryView[], shown: number, channel?: string): RelayTreeNode[] {
  const rows: RelayTreeNode[] = list.slice(0, shown).map((delivery) => ({ kind: 'relayDelivery', delivery }));
  if (list.length > shown) rows.push({ kind: 'relayMore', shown, total: list.length, ...(channel !== undefined ? { channel } : {}) });
  return rows;
}
