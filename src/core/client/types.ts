// Shapes the service client sends and returns (spec §2 and the emulator's choices in
// docs/architecture.md). Records from the service are normalised to these shapes on receipt.
import type { Dispatcher } from 'undici';

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface Webhook {
  id: string;
  url: string;
  content_type: string;
  events: string[];
  secret_set: boolean;
  created_at?: string;
}

export interface CreateWebhookBody {
  url: string;
  content_type: 'json';
  secret?: string;
  events: string[];
}

export interface DeliveryAttempt {
  at: string;
  success: boolean;
  status: number | null;
  error?: string;
  duration_ms: number;
}

export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  event: string;
  /** ISO 8601, to the second: the last attempt. */
  delivered_at: string;
  success: boolean;
  /** Last HTTP status; null when no response came. */
  status: number | null;
  error?: string;
  attempts: DeliveryAttempt[];
  next_attempt_at: string | null;
  redelivery: boolean;
}

export interface DeliveryDetail extends DeliveryRecord {
  request: { headers: Record<string, string>; body: string };
}

export type DeliveryListing =
  { offered: true; total: number; successful: number; failed: number; deliveries: DeliveryRecord[] } | { offered: false; reason: string };

/** One issue of the bulk import (spec §2.4): exported from an external code host, as the service takes it. */
export interface IssueRecord {
  number: number;
  title: string;
  /** An export's `null` body is sent as "". */
  body: string;
  /** The shapes of labels and assignees are "not shown" (spec §2.4): collections passed through as they are. */
  labels: unknown[];
  assignees: unknown[];
  state: 'open' | 'closed';
}

export interface CreateSecretBody {
  name: string;
  value: string;
  protected?: boolean;
}

export interface ServiceClientOptions {
  /** e.g. http://127.0.0.1:8787 or https://host/prefix/ ; `/api/v1` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`; never appears in errors. */
  token?: string;
  /** Deadline per attempt for the whole exchange: connect, headers and body (default 10 s). */
  timeoutMs?: number;
  /**
   * Further attempts after the first (default 3), for idempotent methods only (GET, HEAD, PUT,
   * DELETE), on 429/502/503/504 and network errors. A time-out is not retried: it already cost
   * `timeoutMs`, and repeating it would multiply the wait.
   */
  retries?: number;
  /** undici dispatcher (tests, proxies). Default: undici's global dispatcher. */
  dispatcher?: Dispatcher;
  /** Waits between attempts (tests pass a recorder). Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Clock for `Retry-After` HTTP dates (default Date.now). */
  now?: () => number;
  /** First backoff delay; doubled per retry (default 500 ms, at most 8 s). */
  backoffMs?: number;
  /** Longest wait a `Retry-After` header may ask for (default 30 s). */
  maxRetryAfterMs?: number;
  /** Largest response body read (default 32 MiB); larger → 'invalid-response'. */
  maxResponseBytes?: number;
}
