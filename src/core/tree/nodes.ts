// The Webhooks and Relay trees as plain data: node kinds and the row each one shows.
// The extension maps a TreeRow onto a vscode.TreeItem one-to-one.
import {
  byCreatedDesc,
  deliveriesLabel,
  deliveriesTooltip,
  deliveryDescription,
  deliveryLabel,
  deliveryTooltip,
  eventsDescription,
  webhookLabel,
  webhookTooltip,
} from './labels';
import { loadMoreLabel } from './paging';
import { repoKey, type DeliveryCounts, type DeliverySource, type DeliveryView, type RepoRef, type WebhookView } from './types';

export type WebhookTreeNode =
  | { kind: 'repository'; repo: RepoRef }
  | { kind: 'webhook'; repo: RepoRef; webhook: WebhookView }
  /** `detail`: what the count row says after the counts (the relay channel, what was filtered). */
  | { kind: 'deliveries'; repo: RepoRef; webhook: WebhookView; counts: DeliveryCounts; source: DeliverySource; detail?: string }
  /** `inRelay`: the relay's journal holds this delivery, so Replay can work (its contextValue ends in `.inRelay`). */
  | { kind: 'delivery'; repo: RepoRef; webhook: WebhookView; delivery: DeliveryView; source: DeliverySource; inRelay?: boolean }
  | { kind: 'loadMore'; repo: RepoRef; webhook: WebhookView; shown: number; total: number }
  | MessageNode;

/**
 * A row that says something instead of listing data. `problem` names what went wrong (its
 * contextValue is `message.<problem>`, which menus use for inline buttons); `action` runs on click.
 */
export interface MessageNode {
  kind: 'message';
  id: string;
  text: string;
  detail?: string;
  severity: 'info' | 'warning' | 'error';
  problem?: 'auth' | 'signedOut' | 'network' | 'config' | 'service';
  action?: { command: string; title: string; arguments?: unknown[] };
}

export interface TreeRow {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** Used by package.json `when` clauses (`viewItem == webhook`, `viewItem =~ /^delivery\.failed/`). */
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  /** A codicon id and optional theme color id; 'webhook' means the SVG in media/. */
  icon?: { id: string; color?: string };
  command?: { command: string; title: string; arguments?: unknown[] };
}

/** Command ids the rows reference (kept equal to src/extension/ids.ts by test/unit/extension/manifest.test.ts). */
export const ROW_COMMANDS = {
  openDelivery: 'serviceHooks.openDelivery',
  loadMore: 'serviceHooks.loadMore',
  signIn: 'serviceHooks.signIn',
  refresh: 'serviceHooks.refresh',
} as const;

export function webhookRow(node: WebhookTreeNode): TreeRow {
  switch (node.kind) {
    case 'repository':
      return {
        id: `repo:${repoKey(node.repo)}`,
        label: repoKey(node.repo),
        contextValue: 'repository',
        collapsible: 'expanded',
        icon: { id: 'repo' },
        tooltip: `Repository ${repoKey(node.repo)}`,
      };
    case 'webhook':
      return {
        id: `hook:${repoKey(node.repo)}:${node.webhook.id}`,
        label: webhookLabel(node.webhook.url),
        description: eventsDescription(node.webhook.events),
        tooltip: webhookTooltip(node.webhook),
        contextValue: 'webhook',
        collapsible: 'collapsed',
        icon: { id: 'webhook' },
      };
    case 'deliveries':
      return {
        id: `deliveries:${node.webhook.id}`,
        label: deliveriesLabel(node.counts),
        description: node.detail ?? (node.source === 'relay' ? 'relay journal' : undefined),
        tooltip: deliveriesTooltip(node.counts, node.source) + (node.detail ? `\n${node.detail.replaceAll(' · ', '\n')}` : ''),
        contextValue: 'deliveries',
        collapsible: node.counts.total > 0 ? 'collapsed' : 'none',
        icon: { id: 'history' },
      };
    case 'delivery': {
      const d = node.delivery;
      return {
        // A delivery id can be journaled by the relay several times (retries, redeliveries): its seq is unique.
        id: d.seq !== undefined ? `delivery:relay:${node.webhook.id}:#${d.seq}` : `delivery:${node.source}:${node.webhook.id}:${d.id}`,
        label: deliveryLabel(d),
        description: deliveryDescription(d),
        tooltip: deliveryTooltip(d, node.source),
        contextValue: `${d.success ? 'delivery.ok' : 'delivery.failed'}${node.inRelay ? '.inRelay' : ''}`,
        collapsible: 'none',
        icon: d.success ? { id: 'pass', color: 'testing.iconPassed' } : { id: 'error', color: 'testing.iconFailed' },
        command: { command: ROW_COMMANDS.openDelivery, title: 'Open Delivery', arguments: [node] },
      };
    }
    case 'loadMore':
      return {
        id: `more:${node.webhook.id}:${node.shown}`,
        label: loadMoreLabel(node.shown, node.total),
        contextValue: 'loadMore',
        collapsible: 'none',
        icon: { id: 'ellipsis' },
        command: { command: ROW_COMMANDS.loadMore, title: 'Load More', arguments: [node] },
      };
    case 'message':
      return {
        id: `msg:${node.id}`,
        label: node.text,
        tooltip: node.action ? `${node.detail ?? node.text}\n\nClick: ${node.action.title}` : node.detail,
        contextValue: node.problem ? `message.${node.problem}` : 'message',
        collapsible: 'none',
        ...(node.action ? { command: node.action } : {}),
        icon: {
          id: node.severity === 'info' ? 'info' : node.severity === 'warning' ? 'warning' : 'error',
          ...(node.severity === 'error' ? { color: 'errorForeground' } : {}),
        },
      };
  }
}

/** The children of one webhook's deliveries row: one page of deliveries plus "Load more…" when there are more. */
export function deliveryChildren(
  repo: RepoRef,
  webhook: WebhookView,
  loaded: readonly DeliveryView[],
  total: number,
  source: DeliverySource,
  hasMore = loaded.length < total,
  inRelay: (d: DeliveryView) => boolean = () => false,
): WebhookTreeNode[] {
  const nodes: WebhookTreeNode[] = byCreatedDesc(loaded).map((delivery) => ({
    kind: 'delivery',
    repo,
    webhook,
    delivery,
    source,
    ...(inRelay(delivery) ? { inRelay: true } : {}),
  }));
  if (hasMore) nodes.push({ kind: 'loadMore', repo, webhook, shown: loaded.length, total });
  return nodes;
}

export function countDeliveries(list: readonly Pick<DeliveryView, 'success'>[]): DeliveryCounts {
  let successful = 0;
  for (const d of list) if (d.success) successful++;
  return { total: list.length, successful, failed: list.length - successful };
}
