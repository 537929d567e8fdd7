// Tolerant readers of service responses: the spec does not show response bodies, so records
// are normalised (numeric ids become strings, missing flags default) and unusable bodies are
// either `undefined` (where no body is promised) or an 'invalid-response' error (where one is).
import { ServiceError } from './errors';
import type { DeliveryAttempt, DeliveryDetail, DeliveryRecord, Webhook } from './types';

type Obj = Record<string, unknown>;

export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function id(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const status = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

export function toWebhook(v: unknown): Webhook | undefined {
  if (!isObj(v)) return undefined;
  const hookId = id(v.id);
  if (hookId === undefined) return undefined;
  const w: Webhook = { id: hookId, url: str(v.url), content_type: str(v.content_type, 'json'), events: strs(v.events), secret_set: v.secret_set === true };
  if (typeof v.created_at === 'string') w.created_at = v.created_at;
  return w;
}

function toAttempt(v: unknown): DeliveryAttempt | undefined {
  if (!isObj(v)) return undefined;
  const a: DeliveryAttempt = {
    at: str(v.at),
    success: v.success === true,
    status: status(v.status),
    duration_ms: typeof v.duration_ms === 'number' ? v.duration_ms : 0,
  };
  if (typeof v.error === 'string') a.error = v.error;
  return a;
}

export function toDelivery(v: unknown, webhookId?: string): DeliveryRecord | undefined {
  if (!isObj(v)) return undefined;
  const deliveryId = id(v.id);
  if (deliveryId === undefined) return undefined;
  const d: DeliveryRecord = {
    id: deliveryId,
    webhook_id: id(v.webhook_id) ?? webhookId ?? '',
    event: str(v.event),
    delivered_at: str(v.delivered_at),
    success: v.success === true,
    status: status(v.status),
    attempts: Array.isArray(v.attempts) ? v.attempts.map(toAttempt).filter((a): a is DeliveryAttempt => a !== undefined) : [],
    next_attempt_at: typeof v.next_attempt_at === 'string' ? v.next_attempt_at : null,
    redelivery: v.redelivery === true,
  };
  if (typeof v.error === 'string') d.error = v.error;
  return d;
}

export function toDeliveryDetail(v: unknown, webhookId: string): DeliveryDetail | undefined {
  const d = toDelivery(v, webhookId);
  if (!d || !isObj(v)) return undefined;
  const req = isObj(v.request) ? v.request : {};
  const headers: Record<string, string> = {};
  if (isObj(req.headers)) for (const [k, h] of Object.entries(req.headers)) if (typeof h === 'string') headers[k] = h;
  return { ...d, request: { headers, body: str(req.body) } };
}

function invalid(method: string, path: string, status: number, what: string): ServiceError {
  return new ServiceError({ kind: 'invalid-response', method, path, status, detail: `expected ${what} in the ${status} answer` });
}

/** A list of webhooks: a JSON array (or `{ webhooks: [...] }`) whose every entry has an id. */
export function webhookList(text: string, method: string, path: string, code: number): Webhook[] {
  const j = parseJson(text);
  const list = Array.isArray(j) ? j : isObj(j) && Array.isArray(j.webhooks) ? j.webhooks : undefined;
  if (!list) throw invalid(method, path, code, 'a JSON array of webhooks');
  const hooks = list.map(toWebhook);
  if (hooks.some((h) => h === undefined)) throw invalid(method, path, code, 'every webhook to have an id');
  return hooks as Webhook[];
}

export function deliveryPage(text: string, method: string, path: string, code: number, webhookId: string) {
  const j = parseJson(text);
  const list = Array.isArray(j) ? j : isObj(j) && Array.isArray(j.deliveries) ? j.deliveries : undefined;
  if (!list) throw invalid(method, path, code, '{ deliveries: [...] }');
  const deliveries = list.map((d) => toDelivery(d, webhookId));
  if (deliveries.some((d) => d === undefined)) throw invalid(method, path, code, 'every delivery to have an id');
  const ds = deliveries as DeliveryRecord[];
  const count = (k: string, fallback: number) => (isObj(j) && typeof j[k] === 'number' ? (j[k] as number) : fallback);
  const successful = count('successful', ds.filter((d) => d.success).length);
  const failed = count('failed', ds.length - ds.filter((d) => d.success).length);
  return { offered: true as const, total: count('total', ds.length), successful, failed, deliveries: ds };
}
