// The Relay view as plain data: state row, channels with counts, live deliveries.
import { toSecond } from './labels';
import type { DeliveryView, RelayChannelView, RelayDeliveryView, RelayStatusView } from './types';
import type { TreeRow } from './nodes';
import { shortUrl } from './relayAddress';
import type { ForwardSession } from './forwardSession';
import { SUBSCRIBER_TARGET } from '../relay/protocol';
import { routingDescription } from '../relay/forwardRouting';

export type RelayState = 'stopped' | 'starting' | 'running' | 'connecting' | 'offline' | 'failed';

export type RelayTreeNode =
  | { kind: 'relayState'; state: RelayState; port?: number; detail?: string; remote?: string; forwardTo?: string }
  /** grouped: its deliveries are its children (the Relay view groups rows by channel). */
  | { kind: 'relayChannel'; channel: RelayChannelView; grouped?: boolean }
  | { kind: 'relayForwarding'; session: ForwardSession }
  | { kind: 'relayDelivery'; delivery: RelayDeliveryView }
  | { kind: 'relayMore'; shown: number; total: number; channel?: string };

export function relayStateLabel(state: RelayState, port?: number, remote?: string): string {
  if (remote) return remoteStateLabel(state, remote);
  switch (state) {
    case 'running':
      return `Running on port ${port ?? '?'}`;
    case 'starting':
      return 'Starting…';
    case 'connecting':
      return `Connecting to port ${port ?? '?'}…`;
    case 'offline':
      return 'Relay offline';
    case 'failed':
      return 'Relay failed';
    case 'stopped':
      return 'Stopped';
  }
}

function remoteStateLabel(state: RelayState, remote: string): string {
  switch (state) {
    case 'running':
      return `Connected to ${remote}`;
    case 'starting':
    case 'connecting':
      return `Connecting to ${remote}…`;
    case 'offline':
    case 'failed':
    case 'stopped':
      return `Not connected to ${remote}`;
  }
}

export function channelDescription(c: RelayChannelView): string {
  const refused = c.refused ? ` · refused ${c.refused} (source not allowed)` : '';
  return `received ${c.received} · verified ${c.verified} · unverified ${c.unverified} · rejected ${c.rejected} · forwarded ${c.forwarded} · failed ${c.failed}${refused}`;
}

const VERIFY_MARK: Record<RelayDeliveryView['verification'], string> = {
  verified: '✓ verified',
  unverified: '• unverified',
  rejected: '✗ rejected',
};

export function forwardSummary(d: RelayDeliveryView): string {
  if (d.forward.length === 0) return 'not forwarded';
  return d.forward
    .map((f) => {
      // The app's answer first (`→ 400`: refused for good; `→ 500 · retrying`), as the forwarding rules word it.
      const state =
        f.status === 'ok'
          ? `→ ${f.lastStatus ?? 'ok'}`
          : f.status === 'skipped'
            ? 'skipped by the filter'
            : f.status === 'pending'
              ? f.lastStatus
                ? `→ ${f.lastStatus} · retrying`
                : '→ pending'
              : f.lastStatus
                ? `→ ${f.lastStatus}`
                : '→ failed';
      return f.target === SUBSCRIBER_TARGET ? `${state} (subscriber)` : state;
    })
    .join(', ');
}

/** Where a set-up forwards, a line per app, and what its filter leaves out. */
function forwardingTooltip(f: ForwardSession): string {
  const own = Object.entries(f.routes ?? {}).filter(([event]) => f.events === undefined || f.events.includes(event));
  const lines =
    own.length === 0
      ? [`the editor forwards each delivery to ${f.to}.`]
      : [`the editor forwards ${own.map(([e, u]) => `${e} to ${u}`).join(', ')}, and the rest to ${f.to}.`];
  if (f.events !== undefined) lines.push(`Only ${f.events.join(', ')}: other events are skipped by the filter (recorded so at the relay).`);
  if (f.skipVerify) lines.push("The app's certificate is not checked (an app on this machine).");
  return lines.join('\n');
}

/** A forward state's target in words: the relay's own target URL, or the subscriber that forwarded it. */
function forwardTargetText(target: string): string {
  return target === SUBSCRIBER_TARGET ? 'by a subscriber (the editor or service-hooks forward)' : `to ${target}`;
}

export function relayRow(node: RelayTreeNode): TreeRow {
  switch (node.kind) {
    case 'relayState':
      return {
        id: 'relay:state',
        label: relayStateLabel(node.state, node.port, node.remote),
        ...(node.forwardTo ? { description: `⇄ ${node.forwardTo}` } : {}),
        tooltip: node.detail,
        contextValue: `relayState.${node.remote ? 'remote.' : ''}${node.state}`,
        collapsible: 'none',
        icon: { id: node.state === 'running' ? 'radio-tower' : node.state === 'failed' ? 'error' : 'debug-disconnect' },
      };
    case 'relayChannel':
      return {
        id: `relay:channel:${node.channel.name}`,
        label: node.channel.name,
        description: channelDescription(node.channel),
        tooltip: `Channel ${node.channel.name}\n${channelDescription(node.channel).replaceAll(' · ', '\n')}`,
        contextValue: 'relayChannel',
        collapsible: node.grouped ? 'expanded' : 'none',
        icon: { id: 'symbol-namespace' },
      };
    case 'relayForwarding': {
      const f = node.session;
      const choices = routingDescription(f, shortUrl);
      return {
        id: `relay:forwarding:${f.relay}#${f.channel}`,
        label: `${f.repo || `channel ${f.channel}`} → ${shortUrl(f.to)}`,
        description: `channel ${f.channel}${choices ? ` · ${choices}` : ''}`,
        tooltip: `${f.webhookId ? `Webhook ${f.webhookId} of ${f.repo}` : 'The service'} delivers to ${f.ingressUrl};\n${forwardingTooltip(f)}`,
        contextValue: 'relayForwarding',
        collapsible: 'none',
        icon: { id: 'arrow-swap' },
      };
    }
    case 'relayDelivery': {
      const d = node.delivery;
      return {
        id: `relay:delivery:${d.seq}`,
        label: `#${d.seq} ${d.event ?? 'unknown event'}`,
        description: `${VERIFY_MARK[d.verification]} ${forwardSummary(d)} · ${toSecond(d.receivedAt)}`,
        tooltip: [
          `Sequence ${d.seq} on channel ${d.channel}`,
          `Received: ${toSecond(d.receivedAt)} UTC, ${d.size} bytes`,
          `Signature: ${d.verification}${d.reason ? ` (${d.reason})` : ''}`,
          ...(d.deliveryId ? [`Delivery: ${d.deliveryId}`] : []),
          ...d.forward.map(
            (f) => `Forward ${forwardTargetText(f.target)}: ${f.status}${f.lastStatus ? ` (HTTP ${f.lastStatus})` : ''}, ${f.attempts} attempt(s)`,
          ),
        ].join('\n'),
        contextValue: `relayDelivery.${d.verification}`,
        collapsible: 'none',
        icon:
          d.verification === 'verified'
            ? { id: 'verified', color: 'testing.iconPassed' }
            : d.verification === 'rejected'
              ? { id: 'error', color: 'testing.iconFailed' }
              : { id: 'unverified' },
        command: { command: 'serviceHooks.openDelivery', title: 'Open Delivery', arguments: [node] },
      };
    }
    case 'relayMore':
      return {
        id: `relay:more:${node.channel ?? ''}:${node.shown}`,
        label: `… ${node.total - node.shown} older deliveries not shown`,
        contextValue: 'relayMore',
        collapsible: 'none',
        icon: { id: 'ellipsis' },
        command: { command: 'serviceHooks.loadMore', title: 'Load More', arguments: [node] },
      };
  }
}

/**
 * Live deliveries kept by seq; an update for a known seq replaces it (forward status changes).
 * Newest first; capped so a busy relay does not grow the view without bound.
 */
export class RelayLiveList {
  private readonly bySeq = new Map<number, RelayDeliveryView>();
  private maxSeq = 0;

  constructor(private readonly cap = 5000) {}

  get lastSeq(): number {
    return this.maxSeq;
  }
  get size(): number {
    return this.bySeq.size;
  }

  upsert(d: RelayDeliveryView): void {
    this.bySeq.set(d.seq, d);
    if (d.seq > this.maxSeq) this.maxSeq = d.seq;
    if (this.bySeq.size > this.cap) {
      const oldest = Math.min(...this.bySeq.keys());
      this.bySeq.delete(oldest);
    }
  }

  get(seq: number): RelayDeliveryView | undefined {
    return this.bySeq.get(seq);
  }

  newestFirst(limit = Infinity): RelayDeliveryView[] {
    const all = [...this.bySeq.values()].sort((a, b) => b.seq - a.seq);
    return limit === Infinity ? all : all.slice(0, limit);
  }

  clear(): void {
    this.bySeq.clear();
  }
}

/**
 * Relay journal entries shown as deliveries of a webhook (used when the service offers no
 * deliveries endpoint). A forward that succeeded (a replay after a refusal, re-signed after a
 * rejection) makes the row a success; one the app answered with a retry pending is `retrying`.
 */
export function relayToDelivery(d: RelayDeliveryView): DeliveryView {
  const okForward = d.forward.find((f) => f.status === 'ok');
  const failedForward = d.forward.find((f) => f.status === 'failed');
  const retryingForward = d.forward.find((f) => f.status === 'pending' && f.lastStatus !== undefined);
  // A rejected delivery reaches an app only by a re-signed replay: its forward ok makes it a success.
  const rejected = d.verification === 'rejected' && okForward === undefined;
  const failed = rejected || failedForward !== undefined;
  const retrying = !failed && retryingForward !== undefined;
  const status = (retryingForward ?? d.forward.find((f) => f.lastStatus !== undefined))?.lastStatus ?? null;
  const base = { id: d.deliveryId ?? `relay-${d.seq}`, seq: d.seq, event: d.event ?? 'unknown', delivered_at: d.receivedAt };
  if (rejected) return { ...base, success: false, status: 401, refusedBy: 'signature', error: `signature rejected${d.reason ? `: ${d.reason}` : ''}` };
  if (failed) {
    const f = failedForward!;
    const answered = f.lastStatus !== undefined ? ` (the app answered ${f.lastStatus})` : '';
    return {
      ...base,
      success: false,
      status: f.lastStatus ?? null,
      refusedBy: 'app',
      error: `the relay took it; its forward ${forwardTargetText(f.target)} failed${answered}`,
    };
  }
  if (retrying) {
    const f = retryingForward;
    return {
      ...base,
      success: false,
      status,
      retrying: true,
      error: `the relay took it; the app answered ${f.lastStatus}, and its forward ${forwardTargetText(f.target)} is retrying`,
    };
  }
  return { ...base, success: true, status };
}

export type { RelayStatusView };
