// The parts of other modules the extension uses, as documented in docs/architecture.md: their own
// types, imported as types only (deps.ts loads the modules lazily, never at activation).
import type { Finding } from '../core/lint';
import type { DeliveryListing, DeliveryDetail, DeliveryRecord, ServiceClient, ServiceError } from '../core/client';
import type { DeliveryView, RepoRef } from '../core/tree';

export type { RepoRef };

export type DeliveryRecordLike = DeliveryRecord & Pick<DeliveryView, 'seq'>;
export type { DeliveryDetail as DeliveryDetailLike, DeliveryListing };

/** What the extension calls on the service client (src/core/client), by its own type. */
export type ServiceClientLike = Pick<
  ServiceClient,
  | 'listWebhooks'
  | 'createWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'ping'
  | 'retryDelivery'
  | 'listDeliveries'
  | 'getDelivery'
  | 'importIssues'
  | 'createSecret'
>;

/** A ServiceError (src/core/client/errors.ts), or an error of the extension's with the same kind. */
export type ServiceErrorLike = Error & Pick<ServiceError, 'kind'> & Partial<Pick<ServiceError, 'method' | 'path' | 'status' | 'bodyExcerpt'>>;

const SERVICE_ERROR_KINDS: readonly string[] = ['http', 'network', 'timeout', 'invalid-response'] satisfies ServiceError['kind'][];

export function isServiceError(err: unknown): err is ServiceErrorLike {
  return err instanceof Error && SERVICE_ERROR_KINDS.includes((err as Partial<ServiceErrorLike>).kind as string);
}

/** A linter finding: the core linter's own type (a type-only import; nothing loads at activation). */
export type LintFinding = Finding;

export type { SignatureExplanation } from '../core/doctor';
