// The parts of other modules the extension uses, as documented in docs/architecture.md.
// Declared structurally so the adapters depend on the contract, not on a module's internals;
// deps.ts loads the real modules lazily and checks they satisfy these shapes.
import type { Finding } from '../core/lint';
import type { DeliveryView, RepoRef, WebhookView } from '../core/tree';

export type { RepoRef };

export interface DeliveryRecordLike extends DeliveryView {
  webhook_id: string;
  next_attempt_at?: string | null;
}

export interface DeliveryDetailLike extends DeliveryRecordLike {
  request: { headers: Record<string, string>; body: string };
}

export type DeliveryListing =
  | { offered: true; total: number; successful: number; failed: number; deliveries: DeliveryRecordLike[] }
  | { offered: false; reason: string };

export interface ServiceClientLike {
  listWebhooks(repo: RepoRef): Promise<WebhookView[]>;
  createWebhook(repo: RepoRef, body: { url: string; content_type: 'json'; secret?: string; events: string[] }): Promise<WebhookView | undefined>;
  updateWebhook(repo: RepoRef, id: string, body: { events: string[] }): Promise<WebhookView | undefined>;
  deleteWebhook(repo: RepoRef, id: string): Promise<void>;
  ping(id: string): Promise<DeliveryRecordLike | undefined>;
  retryDelivery(webhookId: string, deliveryId: string): Promise<DeliveryRecordLike | undefined>;
  listDeliveries(webhookId: string, page: { limit?: number; offset?: number }): Promise<DeliveryListing>;
  getDelivery(webhookId: string, deliveryId: string): Promise<DeliveryDetailLike | undefined>;
  importIssues(repo: RepoRef, issues: unknown[]): Promise<unknown>;
  createSecret(repo: RepoRef, body: { name: string; value: string; protected?: boolean }): Promise<unknown>;
}

export interface ServiceErrorLike extends Error {
  kind: 'http' | 'network' | 'timeout' | 'invalid-response';
  method?: string;
  path?: string;
  status?: number;
  bodyExcerpt?: string;
}

export function isServiceError(err: unknown): err is ServiceErrorLike {
  return (
    err instanceof Error &&
    typeof (err as Partial<ServiceErrorLike>).kind === 'string' &&
    ['http', 'network', 'timeout', 'invalid-response'].includes((err as ServiceErrorLike).kind)
  );
}

/** A linter finding: the core linter's own type (a type-only import; nothing loads at activation). */
export type LintFinding = Finding;

export interface SignatureExplanation {
  ok: boolean;
  findings: string[];
}
