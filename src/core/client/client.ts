// ServiceClient: every endpoint of spec §4 under /api/v1, plus the emulator's delivery listing
// (docs/architecture.md "Service client"). Pure of vscode; I/O through undici and injected options.
import { Transport } from './http';
import { deliveryPage, parseJson, toDelivery, toDeliveryDetail, toWebhook, webhookList } from './parse';
import { api, normaliseBaseUrl } from './url';
import type {
  CreateSecretBody,
  CreateWebhookBody,
  DeliveryDetail,
  DeliveryListing,
  DeliveryRecord,
  IssueRecord,
  RepoRef,
  ServiceClientOptions,
  Webhook,
} from './types';

/** Statuses meaning "this service has no such endpoint" for the optional delivery endpoints. */
const NOT_OFFERED = [404, 405];

export class ServiceClient {
  /** The normalised base URL (no trailing slash, no /api/v1). */
  readonly baseUrl: string;
  private readonly http: Transport;

  constructor(options: ServiceClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.http = new Transport(this.baseUrl, options);
  }

  async listWebhooks(repo: RepoRef): Promise<Webhook[]> {
    const path = api`/repos/${repo.owner}/${repo.repo}/webhooks`;
    const res = await this.http.call('GET', path);
    return webhookList(res.text, 'GET', path, res.status);
  }

  async createWebhook(repo: RepoRef, body: CreateWebhookBody): Promise<Webhook | undefined> {
    const res = await this.http.call('POST', api`/repos/${repo.owner}/${repo.repo}/webhooks`, { body, sensitive: [body.secret] });
    return toWebhook(parseJson(res.text));
  }

  async updateWebhook(repo: RepoRef, id: string, body: { events?: string[]; secret?: string }): Promise<Webhook | undefined> {
    const res = await this.http.call('PATCH', api`/repos/${repo.owner}/${repo.repo}/webhooks/${id}`, { body });
    return toWebhook(parseJson(res.text));
  }

  async deleteWebhook(repo: RepoRef, id: string): Promise<void> {
    await this.http.call('DELETE', api`/repos/${repo.owner}/${repo.repo}/webhooks/${id}`);
  }

  async ping(id: string): Promise<DeliveryRecord | undefined> {
    const res = await this.http.call('POST', api`/webhooks/${id}/ping`);
    return toDelivery(parseJson(res.text), id);
  }

  async retryDelivery(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const res = await this.http.call('POST', api`/webhooks/${webhookId}/deliveries/${deliveryId}/retry`);
    return toDelivery(parseJson(res.text), webhookId);
  }

  /** The emulator's delivery listing; `{ offered: false }` when the service answers 404/405. */
  async listDeliveries(webhookId: string, page: { limit?: number; offset?: number } = {}): Promise<DeliveryListing> {
    const q = new URLSearchParams();
    for (const k of ['limit', 'offset'] as const) {
      const v = page[k];
      if (v === undefined) continue;
      if (!Number.isInteger(v) || v < 0) throw new TypeError(`listDeliveries: ${k} must be a non-negative integer, got ${v}`);
      q.set(k, String(v));
    }
    const path = api`/webhooks/${webhookId}/deliveries` + (q.toString() ? `?${q.toString()}` : '');
    const res = await this.http.call('GET', path, { accept: NOT_OFFERED });
    if (NOT_OFFERED.includes(res.status)) return { offered: false, reason: `not offered by this service (${res.status})` };
    return deliveryPage(res.text, 'GET', path, res.status, webhookId);
  }

  /** One delivery with its request; undefined when the service answers 404/405. */
  async getDelivery(webhookId: string, deliveryId: string): Promise<DeliveryDetail | undefined> {
    const res = await this.http.call('GET', api`/webhooks/${webhookId}/deliveries/${deliveryId}`, { accept: NOT_OFFERED });
    if (NOT_OFFERED.includes(res.status)) return undefined;
    return toDeliveryDetail(parseJson(res.text), webhookId);
  }

  /** Bulk issue import: the answer's JSON, or undefined when it is empty or not JSON. */
  async importIssues(repo: RepoRef, issues: IssueRecord[]): Promise<unknown> {
    const res = await this.http.call('POST', api`/repos/${repo.owner}/${repo.repo}/issues/bulk`, { body: issues });
    return parseJson(res.text);
  }

  /** Creates a CI secret; the value is redacted from any error. */
  async createSecret(repo: RepoRef, body: CreateSecretBody): Promise<unknown> {
    const res = await this.http.call('POST', api`/repos/${repo.owner}/${repo.repo}/secrets`, { body, sensitive: [body.value] });
    return parseJson(res.text);
  }
}
