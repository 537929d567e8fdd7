// The service client (docs/architecture.md "Service client"): ServiceClient, ServiceError and the record types.
export { ServiceClient } from './client';
export { NETWORK_ERROR_CODES, ServiceError, networkErrorCode, networkErrorText, type ServiceErrorKind } from './errors';
export { normaliseBaseUrl } from './url';
export type {
  CreateSecretBody,
  CreateWebhookBody,
  DeliveryAttempt,
  DeliveryDetail,
  DeliveryListing,
  DeliveryRecord,
  IssueRecord,
  RepoRef,
  ServiceClientOptions,
  Webhook,
} from './types';
