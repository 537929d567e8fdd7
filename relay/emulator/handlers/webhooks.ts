// Webhook management (spec §4): list, create, update (PATCH), delete.
import { sendEmpty, sendJson } from '../../shared/http';
import { toWebhookRecord } from '../store';
import { checkCreateWebhook, checkPatchWebhook } from '../validate';
import { readChecked, repoKey, webhookIn, type Handler } from './context';

export const listWebhooks: Handler = (ctx, _req, res, p) => {
  sendJson(res, 200, ctx.store.webhooksOf(repoKey(p)).map(toWebhookRecord));
};

export const createWebhook: Handler = async (ctx, req, res, p) => {
  const fields = await readChecked(ctx, req, res, checkCreateWebhook);
  if (!fields) return;
  const w = ctx.store.addWebhook(repoKey(p), fields, ctx.now());
  sendJson(res, 201, toWebhookRecord(w), { location: `/api/v1/repos/${repoKey(p)}/webhooks/${w.id}` });
};

export const updateWebhook: Handler = async (ctx, req, res, p) => {
  if (!webhookIn(ctx, res, p[2]!, repoKey(p))) {
    req.resume();
    return;
  }
  const patch = await readChecked(ctx, req, res, checkPatchWebhook);
  if (!patch) return;
  // It may have been deleted while the body arrived.
  if (!webhookIn(ctx, res, p[2]!, repoKey(p))) return;
  sendJson(res, 200, toWebhookRecord(ctx.store.updateWebhook(p[2]!, patch)!));
};

export const deleteWebhook: Handler = (ctx, _req, res, p) => {
  const w = webhookIn(ctx, res, p[2]!, repoKey(p));
  if (!w) return;
  ctx.engine.forget(ctx.store.deleteWebhook(w.id));
  sendEmpty(res, 204);
};
