// Routes of the emulator's own (not the service's): fire an event, see what was imported, and an
// endpoint that always answers a chosen status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { samplePayload } from '../../../src/core/events';
import { readRaw, sendEmpty, sendError, sendJson, sendTooLarge } from '../../shared/http';
import { checkFire } from '../validate';
import { readChecked, repoKey, type Handler, type RouterContext } from './context';

export const fireEvent: Handler = async (ctx, req, res, p) => {
  const fire = await readChecked(ctx, req, res, checkFire);
  if (!fire) return;
  const key = repoKey(p);
  ctx.store.ensureRepo(key);
  const payload = fire.payload ?? samplePayload(fire.event, { owner: p[0]!, repo: p[1]!, baseUrl: ctx.selfUrl(), now: ctx.now() });
  const deliveries = ctx.store
    .webhooksOf(key)
    .filter((w) => w.events.includes(fire.event))
    .map((w) => ctx.engine.create(w, fire.event, payload).delivery);
  sendJson(res, 202, { event: fire.event, deliveries: deliveries.map((d) => ({ id: d.id, webhook_id: d.webhook_id })) });
};

export const listIssues: Handler = (ctx, _req, res, p) => sendJson(res, 200, ctx.store.issuesOf(repoKey(p)));

export const listSecrets: Handler = (ctx, _req, res, p) => sendJson(res, 200, ctx.store.secretsOf(repoKey(p)));

/** ANY /_emulator/fail/<status>: answers <status> (200–599), without auth. */
export async function failWith(ctx: RouterContext, req: IncomingMessage, res: ServerResponse, statusText: string): Promise<void> {
  const status = Number(statusText);
  const raw = await readRaw(req, ctx.maxBody);
  if (raw === 'aborted') return;
  if (!/^\d{3}$/.test(statusText) || status < 200 || status > 599) {
    return sendError(res, 400, `the status must be a number from 200 to 599, got '${statusText}'`, 'status');
  }
  if (raw === 'too-large') return sendTooLarge(req, res, `the body exceeds the ${ctx.maxBody}-byte limit`);
  if (status === 204 || status === 304) return sendEmpty(res, status);
  sendJson(res, status, { emulated: true, status });
}
