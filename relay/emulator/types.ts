// The emulator's records: what the API returns (docs/architecture.md "Service API as the emulator
// serves it") and what it keeps in memory and in the state file.
import type { DeliveryDetail, DeliveryRecord, IssueRecord } from '../../src/core/client/types';
import type { EventType } from '../../src/core/events';

/** Webhook record as returned by the API. The secret is never returned. */
export interface WebhookRecord {
  id: string;
  url: string;
  content_type: 'json';
  events: EventType[];
  secret_set: boolean;
  created_at: string;
}

// The delivery records on the wire are the ones the service client reads: one definition for both sides.
export type { DeliveryAttempt, DeliveryRecord } from '../../src/core/client/types';

export type { DeliveryDetail } from '../../src/core/client/types';
/** The exact request a delivery sent: headers and body. */
export type DeliveryRequest = DeliveryDetail['request'];

/** The fields a webhook is created with (validated). */
export interface WebhookFields {
  url: string;
  events: EventType[];
  secret?: string;
}

/** A PATCH: the fields to change; `clearSecret` removes the secret. */
export type WebhookPatch = Partial<WebhookFields> & { clearSecret?: boolean };

/** A webhook as stored: the record plus its repository and secret. */
export interface StoredWebhook extends Omit<WebhookRecord, 'secret_set'> {
  repo: string;
  secret?: string;
}

/** A delivery as stored: the record, the exact request, and how many automatic attempts ran. */
export interface EmulatedDelivery extends DeliveryRecord {
  request: DeliveryRequest;
  auto_attempts: number;
}

/** Issue import record (spec §2.4): the service client's type. */
export type { IssueRecord };

/** A CI secret as stored: never its value. */
export interface StoredSecret {
  name: string;
  protected: boolean;
  created_at: string;
  updated_at: string;
}

export interface RepoData {
  issues: IssueRecord[];
  secrets: StoredSecret[];
}

/** The whole persisted state (version 1). */
export interface StateFile {
  version: 1;
  next_webhook_id: number;
  repos: Record<string, RepoData>;
  webhooks: StoredWebhook[];
  /** Per webhook id, oldest first. */
  deliveries: Record<string, EmulatedDelivery[]>;
}
