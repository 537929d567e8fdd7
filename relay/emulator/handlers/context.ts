// What every route handler gets (RouterContext), and the steps they share: reading a checked JSON
// body, finding a webhook (404 otherwise), answering with a delivery once its attempt is recorded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryEngine } from '../engine';
import { readJsonOrRefuse, sendError, sendJson } from '../../shared/http';
import { toDeliveryRecord, type EmulatorStore } from '../store';
import type { EmulatedDelivery, StoredWebhook } from '../types';
import type { Checked } from '../validate';

export interface RouterContext {
  store: EmulatorStore;
  engine: DeliveryEngine;
  token: string;
  maxBody: number;
  replyWaitMs: number;
  /** false: the deliveries listing (an emulator extension) answers 404, as a service without it would. */
  deliveriesEndpoint: boolean;
  now: () => Date;
  /** The emulator's own base URL (for sample payloads). */
  selfUrl: () => string;
  log: (line: string) => void;
}

/** The path's captured segments, percent-decoded. */
export type Params = string[];
export type Handler = (ctx: RouterContext, req: IncomingMessage, res: ServerResponse, p: Params, url: URL) => Promise<void> | void;

/** `<org>/<repo>` of a /repos/<org>/<repo>/… path. */
export const repoKey = (p: Params): string => `${p[0]}/${p[1]}`;

/** Reads and validates a JSON body; on failure answers (413 / 415 / 400) and returns undefined. */
export async function readChecked<T>(ctx: RouterContext, req: IncomingMessage, res: ServerResponse, check: (v: unknown) => Checked<T>): Promise<T | undefined> {
  const r = await readJsonOrRefuse(req, res, ctx.maxBody);
  if (!r) return undefined;
  const c = check(r.value);
  if (!c.ok) {
    sendError(res, 400, c.error, c.field);
    return undefined;
  }
  return c.value;
}

/** The webhook `id` (of `repo` when given); answers 404 and returns undefined when there is none. */
export function webhookIn(ctx: RouterContext, res: ServerResponse, id: string, repo?: string): StoredWebhook | undefined {
  const w = ctx.store.webhook(id);
  if (!w || (repo !== undefined && w.repo !== repo)) {
    sendError(res, 404, repo ? `webhook ${id} not found in ${repo}` : `webhook ${id} not found`);
    return undefined;
  }
  return w;
}

/** Waits for `done` at most replyWaitMs, then answers 202 with the delivery as it stands. */
export async function replyWithDelivery(ctx: RouterContext, res: ServerResponse, d: EmulatedDelivery, done: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, ctx.replyWaitMs)))]);
  clearTimeout(timer);
  sendJson(res, 202, toDeliveryRecord(d));
}
