// Deliveries: ping and manual retry (spec §4), and the listing and detail (an emulator extension).
import { samplePayload } from '../../../src/core/events';
import { sendError, sendJson } from '../../shared/http';
import { toDeliveryDetail, toDeliveryRecord } from '../store';
import { replyWithDelivery, webhookIn, type Handler } from './context';

export const ping: Handler = async (ctx, req, res, p) => {
  req.resume(); // "no body": anything sent is ignored
  const w = webhookIn(ctx, res, p[0]!);
  if (!w) return;
  const [owner, repo] = w.repo.split('/') as [string, string];
  const payload = samplePayload('ping', { owner, repo, baseUrl: ctx.selfUrl(), now: ctx.now(), webhookId: w.id });
  const { delivery, done } = ctx.engine.create(w, 'ping', payload);
  await replyWithDelivery(ctx, res, delivery, done);
};

export const listDeliveries: Handler = (ctx, _req, res, p, url) => {
  if (!webhookIn(ctx, res, p[0]!)) return;
  const limit = intParam(url, 'limit', 30, 1, 100);
  if (typeof limit === 'object') return sendError(res, 400, limit.error, limit.field);
  const offset = intParam(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  if (typeof offset === 'object') return sendError(res, 400, offset.error, offset.field);
  const all = ctx.store.deliveriesOf(p[0]!);
  const newest = [...all].reverse().slice(offset, offset + limit);
  sendJson(res, 200, {
    total: all.length,
    successful: all.filter((d) => d.success).length,
    failed: all.filter((d) => !d.success && d.attempts.length > 0).length,
    deliveries: newest.map(toDeliveryRecord),
  });
};

export const deliveryDetail: Handler = (ctx, _req, res, p) => {
  if (!webhookIn(ctx, res, p[0]!)) return;
  const d = ctx.store.delivery(p[0]!, p[1]!);
  if (!d) return sendError(res, 404, `delivery ${p[1]} not found for webhook ${p[0]}`);
  sendJson(res, 200, toDeliveryDetail(d));
};

export const retryDelivery: Handler = async (ctx, req, res, p) => {
  req.resume();
  if (!webhookIn(ctx, res, p[0]!)) return;
  const d = ctx.store.delivery(p[0]!, p[1]!);
  if (!d) return sendError(res, 404, `delivery ${p[1]} not found for webhook ${p[0]}`);
  if (d.success) return sendError(res, 409, `delivery ${d.id} succeeded; only a failed delivery is retried`);
  await replyWithDelivery(ctx, res, d, ctx.engine.retry(d));
};

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number | { error: string; field: string } {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) return { error: `${name} must be a whole number, got '${raw.slice(0, 50)}'`, field: name };
  const n = Number(raw);
  if (n < min) return { error: `${name} must be at least ${min}`, field: name };
  return Math.min(n, max);
}
