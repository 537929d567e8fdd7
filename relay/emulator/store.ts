// The emulator's in-memory state: repositories (issues, CI secret names), webhooks and their
// deliveries, with projections to the API records. Persistence lives in persist.ts.
import { isoSecond } from '../../src/core/time';
import type { EventType } from '../../src/core/events';
import type {
  DeliveryDetail,
  DeliveryRecord,
  RepoData,
  StateFile,
  StoredDelivery,
  StoredWebhook,
  WebhookRecord,
} from './types';

/** Deliveries kept per webhook (oldest dropped first; a delivery with a pending retry is kept). */
export const MAX_DELIVERIES_PER_WEBHOOK = 500;

export function emptyState(): StateFile {
  return { version: 1, next_webhook_id: 1, repos: {}, webhooks: [], deliveries: {} };
}

export { isoSecond };

export function toWebhookRecord(w: StoredWebhook): WebhookRecord {
  return {
    id: w.id,
    url: w.url,
    content_type: w.content_type,
    events: [...w.events],
    secret_set: typeof w.secret === 'string' && w.secret.length > 0,
    created_at: w.created_at,
  };
}

export function toDeliveryRecord(d: StoredDelivery): DeliveryRecord {
  const r: DeliveryRecord = {
    id: d.id,
    webhook_id: d.webhook_id,
    event: d.event,
    delivered_at: d.delivered_at,
    success: d.success,
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a })),
    next_attempt_at: d.next_attempt_at,
    redelivery: d.redelivery,
  };
  if (d.error !== undefined) r.error = d.error;
  return r;
}

export function toDeliveryDetail(d: StoredDelivery): DeliveryDetail {
  return { ...toDeliveryRecord(d), request: { headers: { ...d.request.headers }, body: d.request.body } };
}

export class EmulatorStore {
  constructor(
    readonly data: StateFile = emptyState(),
    private readonly maxDeliveries = MAX_DELIVERIES_PER_WEBHOOK,
  ) {}

  isEmpty(): boolean {
    return this.data.webhooks.length === 0 && Object.keys(this.data.repos).length === 0;
  }

  repo(key: string): RepoData {
    let r = this.data.repos[key];
    if (!r) {
      r = { issues: [], secrets: [] };
      this.data.repos[key] = r;
    }
    return r;
  }

  webhooksOf(repo: string): StoredWebhook[] {
    return this.data.webhooks.filter((w) => w.repo === repo);
  }

  webhook(id: string): StoredWebhook | undefined {
    return this.data.webhooks.find((w) => w.id === id);
  }

  addWebhook(repo: string, fields: { url: string; events: EventType[]; secret?: string }, now: Date): StoredWebhook {
    this.repo(repo);
    const w: StoredWebhook = {
      id: String(this.data.next_webhook_id++),
      repo,
      url: fields.url,
      content_type: 'json',
      events: [...fields.events],
      created_at: isoSecond(now),
      ...(fields.secret ? { secret: fields.secret } : {}),
    };
    this.data.webhooks.push(w);
    this.data.deliveries[w.id] = [];
    return w;
  }

  /** Removes the webhook and its deliveries; returns the removed deliveries. */
  deleteWebhook(id: string): StoredDelivery[] {
    this.data.webhooks = this.data.webhooks.filter((w) => w.id !== id);
    const gone = this.data.deliveries[id] ?? [];
    delete this.data.deliveries[id];
    return gone;
  }

  /** Oldest first. */
  deliveriesOf(webhookId: string): StoredDelivery[] {
    return this.data.deliveries[webhookId] ?? [];
  }

  delivery(webhookId: string, id: string): StoredDelivery | undefined {
    return this.deliveriesOf(webhookId).find((d) => d.id === id);
  }

  /** Adds a delivery; returns the deliveries dropped to stay within the per-webhook cap. */
  addDelivery(d: StoredDelivery): StoredDelivery[] {
    const list = (this.data.deliveries[d.webhook_id] ??= []);
    list.push(d);
    const dropped: StoredDelivery[] = [];
    for (let i = 0; list.length > this.maxDeliveries && i < list.length; ) {
      if (list[i]!.next_attempt_at === null) dropped.push(...list.splice(i, 1));
      else i++;
    }
    return dropped;
  }

  /** Every delivery with an automatic attempt due. */
  pending(): StoredDelivery[] {
    return Object.values(this.data.deliveries).flatMap((list) => list.filter((d) => d.next_attempt_at !== null));
  }
}
