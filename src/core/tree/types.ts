// Structural shapes the view models read. They match the contracts in docs/architecture.md
// (ServiceClient's Webhook/DeliveryRecord, relay/protocol's RelayDeliverySummary) but are
// declared here so the view models stay independent of the transport modules.

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface WebhookView {
  id: string;
  url: string;
  content_type: string;
  events: readonly string[];
  secret_set: boolean;
  created_at?: string;
}

export interface DeliveryView {
  id: string;
  webhook_id?: string;
  event: string;
  delivered_at: string;
  success: boolean;
  status: number | null;
  error?: string;
  redelivery?: boolean;
  attempts?: readonly unknown[];
  /** Relay journal sequence number, for deliveries read from the relay journal (one id may be journaled several times). */
  seq?: number;
}

/** Where a webhook's deliveries came from. */
export type DeliverySource = 'service' | 'relay';

export interface DeliveryCounts {
  total: number;
  successful: number;
  failed: number;
}

export interface RelayForwardView {
  target: string;
  status: 'pending' | 'ok' | 'failed';
  lastStatus?: number;
  attempts: number;
}

export interface RelayDeliveryView {
  seq: number;
  channel: string;
  receivedAt: string;
  verification: 'verified' | 'unverified' | 'rejected';
  reason?: string;
  event?: string;
  deliveryId?: string;
  size: number;
  forward: readonly RelayForwardView[];
}

export interface RelayChannelView {
  name: string;
  received: number;
  verified: number;
  unverified: number;
  rejected: number;
  forwarded: number;
  failed: number;
}

export interface RelayStatusView {
  port: number;
  channels: readonly RelayChannelView[];
  lastSeq: number;
}

export function repoKey(r: RepoRef): string {
  return `${r.owner}/${r.repo}`;
}

export function parseRepoRef(text: string): RepoRef | undefined {
  const m = /^\s*([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\s*$/.exec(text);
  if (!m) return undefined;
  const repo = m[2]!.replace(/\.git$/, '');
  if (!repo || m[1] === '.' || m[1] === '..' || repo === '.' || repo === '..') return undefined;
  return { owner: m[1]!, repo };
}

/** The seven event types a webhook can subscribe to (spec §6). */
export const SUBSCRIBABLE_EVENTS = ['push', 'pull_request', 'issue', 'comment', 'release', 'pipeline', 'agent'] as const;
