// Shapes the view models read: the service client's wire types (src/core/client/types.ts) and the
// relay's (src/core/relay/protocol.ts), imported as types only so the view models load neither.
import type { RepoRef, Webhook } from '../client/types';
import type { ChannelStatus, ForwardState, RelayDeliverySummary, RelayStatus } from '../relay/protocol';

export type { RepoRef };
/** A webhook as the service client returns it. */
export type WebhookView = Webhook;

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
  /** A test send (service-hooks send, a sample): shown marked, never counted as the service's. */
  test?: boolean;
  /** When the delivery was created (its first attempt); rows show and sort by it. */
  created_at?: string;
  /** Relay journal sequence number, for deliveries read from the relay journal (one id may be journaled several times). */
  seq?: number;
  /**
   * Who refused a failed row read from the relay journal: 'app' — the relay took it (the service
   * counts it delivered) and the app refused it; 'signature' — the relay rejected its signature.
   * Absent: a failure of the service's own delivery. retryRoute.ts picks the retry by it.
   */
  refusedBy?: 'app' | 'signature';
  /** The app answered a retryable status and a forward retry is pending: neither ✓ nor ✗ yet. */
  retrying?: boolean;
}

/** Where a webhook's deliveries came from. */
export type DeliverySource = 'service' | 'relay';

export interface DeliveryCounts {
  total: number;
  successful: number;
  failed: number;
  /** Relay rows whose forward to the app is being retried (neither successful nor failed yet). */
  retrying?: number;
  /**
   * Nothing here can count them: the service lists deliveries in its web UI only and the webhook
   * reaches no relay the editor reads (a failing endpoint's deliveries are failures, not none).
   */
  unknown?: boolean;
}

// The Relay view shows the relay's wire types as they are (src/core/relay/protocol.ts).
export type RelayForwardView = ForwardState;
export type RelayDeliveryView = RelayDeliverySummary;
export type RelayChannelView = ChannelStatus;
export type RelayStatusView = RelayStatus;

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
export { EVENT_TYPES as SUBSCRIBABLE_EVENTS } from '../events/types';
