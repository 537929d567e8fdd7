// The emulator's HTTP routes. Statuses and bodies where the spec says "not shown" are the
// emulator's documented choices (docs/architecture.md, "Service API as the emulator serves it"):
//
//   Every /api/v1 request and every /_emulator/repos/… request needs `Authorization: Bearer <token>`
//   (401 otherwise). Errors are { "error": "<message>", "field"?: "<json path>" }:
//   400 malformed JSON or an invalid field · 401 · 404 unknown route or id · 405 wrong method
//   (with Allow) · 409 retry of a delivery that succeeded · 413 body above the limit (default
//   1 MiB; reading stops at the cap and the connection closes) · 415 a body that is not JSON.
//
//   GET    /api/v1/repos/<org>/<repo>/webhooks                → 200 WebhookRecord[] (oldest first)
//   POST   /api/v1/repos/<org>/<repo>/webhooks                → 201 WebhookRecord (secret_set, never the secret)
//   PATCH  /api/v1/repos/<org>/<repo>/webhooks/<id>           → 200 WebhookRecord; fields events (replaces
//                                                               the subscription), url, content_type, secret ("" or null clears it)
//   DELETE /api/v1/repos/<org>/<repo>/webhooks/<id>           → 204 (its deliveries and pending retries go too)
//   POST   /api/v1/webhooks/<id>/ping                         → 202 DeliveryRecord of a `ping` delivery
//   GET    /api/v1/webhooks/<id>/deliveries?limit=&offset=    → 200 { total, successful, failed, deliveries }
//          newest first; limit ≥ 1 (default 30, at most 100: larger values are clamped), offset ≥ 0. `failed` counts deliveries whose last
//          attempt failed; one whose first attempt has not finished yet is in neither count.
//   GET    /api/v1/webhooks/<id>/deliveries/<delivery_id>     → 200 DeliveryRecord & { request: { headers, body } }
//   POST   /api/v1/webhooks/<id>/deliveries/<delivery_id>/retry → 202 DeliveryRecord with the new attempt
//          (redelivery: true); 409 when the delivery already succeeded. A failed manual attempt leaves
//          the automatic schedule as it was; a successful one ends it.
//   POST   /api/v1/repos/<org>/<repo>/issues/bulk             → 201 { imported, issues: [{ number }] }
//          (records with a number already imported replace the earlier one)
//   POST   /api/v1/repos/<org>/<repo>/secrets                 → 201 { name, protected } (200 when it
//          replaced a secret of that name); the value is never returned, logged or stored on disk
//
//   Ping and retry answer once the attempt is recorded, or after `replyWaitMs` (default 5 s) with the
//   record as it stands then (a hanging receiver is cut off by the delivery time-out later).
//
// Emulator only:
//   POST /_emulator/repos/<org>/<repo>/events { event, payload? } → 202 { event, deliveries: [{ id, webhook_id }] }
//        (payload validated with src/core/events; without one, a sample payload is sent)
//   GET  /_emulator/repos/<org>/<repo>/issues                → 200 IssueRecord[] (imported issues)
//   GET  /_emulator/repos/<org>/<repo>/secrets               → 200 [{ name, protected, created_at, updated_at }]
//   ANY  /_emulator/fail/<status>                            → answers <status> (200–599), no auth
//
// With deliveriesEndpoint off (`emulate --documented-only`) the two GET deliveries routes answer 404
// like any unknown route: the documented service shows deliveries in its web UI only.
//
// Each webhook keeps its newest 500 deliveries (maxDeliveriesPerWebhook); one with a retry due is kept.
// Repositories need no set-up: any <org>/<repo> exists on first use (names: letters, digits, . _ -;
// anything else is 404).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { samplePayload, type EventType } from '../../src/core/events';
import { authorized, readJson, readRaw, sendEmpty, sendError, sendJson } from './http';
import type { DeliveryEngine } from './engine';
import { toDeliveryDetail, toDeliveryRecord, toWebhookRecord, isoSecond, type EmulatorStore } from './store';
import { checkCreateWebhook, checkFire, checkIssues, checkPatchWebhook, checkSecretBody, type Checked } from './validate';
import type { StoredDelivery } from './types';

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
  changed: () => void;
  log: (line: string) => void;
}

type Params = string[];
type Handler = (req: IncomingMessage, res: ServerResponse, p: Params, url: URL) => Promise<void> | void;

interface Route {
  pattern: RegExp;
  auth: boolean;
  /** An emulator extension beyond the documented interface (served unless deliveriesEndpoint is off). */
  extension?: boolean;
  methods: Partial<Record<string, Handler>>;
}

const SEG = '([^/]+)';
/** Organization and repository names. */
const NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;

export function createRouter(ctx: RouterContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { store, engine } = ctx;

  /** Reads and validates a JSON body; on failure answers and returns undefined. */
  async function body<T>(req: IncomingMessage, res: ServerResponse, check: (v: unknown) => Checked<T>): Promise<T | undefined> {
    const r = await readJson(req, ctx.maxBody);
    if (r === 'aborted') return undefined;
    if (!r.ok) {
      if (r.status === 413) {
        sendError(res, 413, r.error, undefined, { connection: 'close' });
        res.on('finish', () => req.socket.destroy());
      } else sendError(res, r.status, r.error);
      return undefined;
    }
    const c = check(r.value);
    if (!c.ok) {
      sendError(res, 400, c.error, c.field);
      return undefined;
    }
    return c.value;
  }

  const repoKey = (p: Params) => `${p[0]}/${p[1]}`;

  function webhookIn(res: ServerResponse, id: string, repo?: string) {
    const w = store.webhook(id);
    if (!w || (repo !== undefined && w.repo !== repo)) {
      sendError(res, 404, repo ? `webhook ${id} not found in ${repo}` : `webhook ${id} not found`);
      return undefined;
    }
    return w;
  }

  /** Waits for `done` at most replyWaitMs, then answers 202 with the delivery as it stands. */
  async function replyWithDelivery(res: ServerResponse, d: StoredDelivery, done: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise<void>((r) => (timer = setTimeout(r, ctx.replyWaitMs)))]);
    clearTimeout(timer);
    sendJson(res, 202, toDeliveryRecord(d));
  }

  const routes: Route[] = [
    {
      pattern: new RegExp(`^/api/v1/repos/${SEG}/${SEG}/webhooks$`),
      auth: true,
      methods: {
        GET: (_req, res, p) => sendJson(res, 200, store.webhooksOf(repoKey(p)).map(toWebhookRecord)),
        POST: async (req, res, p) => {
          const fields = await body(req, res, checkCreateWebhook);
          if (!fields) return;
          const w = store.addWebhook(repoKey(p), fields, ctx.now());
          ctx.changed();
          sendJson(res, 201, toWebhookRecord(w), { location: `/api/v1/repos/${repoKey(p)}/webhooks/${w.id}` });
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/repos/${SEG}/${SEG}/webhooks/${SEG}$`),
      auth: true,
      methods: {
        PATCH: async (req, res, p) => {
          if (!webhookIn(res, p[2]!, repoKey(p))) {
            req.resume();
            return;
          }
          const patch = await body(req, res, checkPatchWebhook);
          if (!patch) return;
          const w = webhookIn(res, p[2]!, repoKey(p)); // it may have been deleted while the body arrived
          if (!w) return;
          if (patch.url !== undefined) w.url = patch.url;
          if (patch.events !== undefined) w.events = patch.events;
          if (patch.secret !== undefined) w.secret = patch.secret;
          if (patch.clearSecret) delete w.secret;
          ctx.changed();
          sendJson(res, 200, toWebhookRecord(w));
        },
        DELETE: (_req, res, p) => {
          const w = webhookIn(res, p[2]!, repoKey(p));
          if (!w) return;
          engine.forget(store.deleteWebhook(w.id));
          ctx.changed();
          sendEmpty(res, 204);
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/webhooks/${SEG}/ping$`),
      auth: true,
      methods: {
        POST: async (req, res, p) => {
          req.resume(); // "no body": anything sent is ignored
          const w = webhookIn(res, p[0]!);
          if (!w) return;
          const [owner, repo] = w.repo.split('/') as [string, string];
          const payload = samplePayload('ping', { owner, repo, baseUrl: ctx.selfUrl(), now: ctx.now(), webhookId: w.id });
          const { delivery, done } = engine.create(w, 'ping', payload);
          await replyWithDelivery(res, delivery, done);
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/webhooks/${SEG}/deliveries$`),
      auth: true,
      extension: true,
      methods: {
        GET: (_req, res, p, url) => {
          if (!webhookIn(res, p[0]!)) return;
          const limit = intParam(url, 'limit', 30, 1, 100);
          const offset = intParam(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
          for (const v of [limit, offset]) if (typeof v === 'object') return sendError(res, 400, v.error, v.field);
          const all = store.deliveriesOf(p[0]!);
          const newest = [...all].reverse().slice(offset as number, (offset as number) + (limit as number));
          sendJson(res, 200, {
            total: all.length,
            successful: all.filter((d) => d.success).length,
            failed: all.filter((d) => !d.success && d.attempts.length > 0).length,
            deliveries: newest.map(toDeliveryRecord),
          });
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/webhooks/${SEG}/deliveries/${SEG}$`),
      auth: true,
      extension: true,
      methods: {
        GET: (_req, res, p) => {
          if (!webhookIn(res, p[0]!)) return;
          const d = store.delivery(p[0]!, p[1]!);
          if (!d) return sendError(res, 404, `delivery ${p[1]} not found for webhook ${p[0]}`);
          sendJson(res, 200, toDeliveryDetail(d));
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/webhooks/${SEG}/deliveries/${SEG}/retry$`),
      auth: true,
      methods: {
        POST: async (req, res, p) => {
          req.resume();
          if (!webhookIn(res, p[0]!)) return;
          const d = store.delivery(p[0]!, p[1]!);
          if (!d) return sendError(res, 404, `delivery ${p[1]} not found for webhook ${p[0]}`);
          if (d.success) return sendError(res, 409, `delivery ${d.id} succeeded; only a failed delivery is retried`);
          await replyWithDelivery(res, d, engine.retry(d));
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/repos/${SEG}/${SEG}/issues/bulk$`),
      auth: true,
      methods: {
        POST: async (req, res, p) => {
          const issues = await body(req, res, checkIssues);
          if (!issues) return;
          const repo = store.repo(repoKey(p));
          for (const issue of issues) {
            const i = repo.issues.findIndex((x) => x.number === issue.number);
            if (i >= 0) repo.issues[i] = issue;
            else repo.issues.push(issue);
          }
          repo.issues.sort((a, b) => a.number - b.number);
          ctx.changed();
          sendJson(res, 201, { imported: issues.length, issues: issues.map((i) => ({ number: i.number })) });
        },
      },
    },
    {
      pattern: new RegExp(`^/api/v1/repos/${SEG}/${SEG}/secrets$`),
      auth: true,
      methods: {
        POST: async (req, res, p) => {
          const s = await body(req, res, checkSecretBody);
          if (!s) return;
          const repo = store.repo(repoKey(p));
          const at = isoSecond(ctx.now());
          const existing = repo.secrets.find((x) => x.name === s.name);
          if (existing) {
            existing.protected = s.protected;
            existing.updated_at = at;
          } else repo.secrets.push({ name: s.name, protected: s.protected, created_at: at, updated_at: at });
          ctx.changed();
          sendJson(res, existing ? 200 : 201, { name: s.name, protected: s.protected });
        },
      },
    },
    {
      pattern: new RegExp(`^/_emulator/repos/${SEG}/${SEG}/events$`),
      auth: true,
      methods: {
        POST: async (req, res, p) => {
          const fire = await body(req, res, checkFire);
          if (!fire) return;
          const key = repoKey(p);
          store.repo(key);
          const payload = fire.payload ?? sample(fire.event, p[0]!, p[1]!);
          const deliveries = store
            .webhooksOf(key)
            .filter((w) => w.events.includes(fire.event))
            .map((w) => engine.create(w, fire.event, payload).delivery);
          ctx.changed();
          sendJson(res, 202, { event: fire.event, deliveries: deliveries.map((d) => ({ id: d.id, webhook_id: d.webhook_id })) });
        },
      },
    },
    {
      pattern: new RegExp(`^/_emulator/repos/${SEG}/${SEG}/issues$`),
      auth: true,
      methods: { GET: (_req, res, p) => sendJson(res, 200, store.data.repos[repoKey(p)]?.issues ?? []) },
    },
    {
      pattern: new RegExp(`^/_emulator/repos/${SEG}/${SEG}/secrets$`),
      auth: true,
      methods: { GET: (_req, res, p) => sendJson(res, 200, store.data.repos[repoKey(p)]?.secrets ?? []) },
    },
  ];

  function sample(event: EventType, owner: string, repo: string) {
    return samplePayload(event, { owner, repo, baseUrl: ctx.selfUrl(), now: ctx.now() });
  }

  async function fail(req: IncomingMessage, res: ServerResponse, statusText: string): Promise<void> {
    const status = Number(statusText);
    const raw = await readRaw(req, ctx.maxBody);
    if (raw === 'aborted') return;
    if (!/^\d{3}$/.test(statusText) || status < 200 || status > 599) {
      return sendError(res, 400, `the status must be a number from 200 to 599, got '${statusText}'`, 'status');
    }
    if (raw === 'too-large') {
      sendError(res, 413, `the body exceeds the ${ctx.maxBody}-byte limit`, undefined, { connection: 'close' });
      res.on('finish', () => req.socket.destroy());
      return;
    }
    if (status === 204 || status === 304) return sendEmpty(res, status);
    sendJson(res, status, { emulated: true, status });
  }

  return async function route(req, res) {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://emulator.invalid');
    } catch {
      req.resume();
      return sendError(res, 400, 'malformed request target');
    }
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    res.on('finish', () => ctx.log(`${method} ${path} → ${res.statusCode}`));

    const failMatch = /^\/_emulator\/fail\/([^/]+)$/.exec(path);
    if (failMatch) return fail(req, res, failMatch[1]!);

    const guarded = path === '/api/v1' || path.startsWith('/api/v1/') || path.startsWith('/_emulator/');
    if (guarded && !authorized(req, ctx.token)) {
      req.resume();
      return sendError(res, 401, 'missing or wrong token: send Authorization: Bearer <token>', undefined, { 'www-authenticate': 'Bearer' });
    }
    for (const r of routes) {
      if (r.extension && !ctx.deliveriesEndpoint) continue;
      const m = r.pattern.exec(path);
      if (!m) continue;
      let params: string[];
      try {
        params = m.slice(1).map((s) => decodeURIComponent(s));
      } catch {
        req.resume();
        return sendError(res, 400, 'malformed percent-encoding in the path');
      }
      if (/^\/(api\/v1|_emulator)\/repos\//.test(path) && !params.slice(0, 2).every((n) => NAME_RE.test(n) && n !== '.' && n !== '..')) {
        req.resume();
        return sendError(res, 404, 'no such repository: organization and repository names hold letters, digits, ".", "_" and "-"');
      }
      const handler = r.methods[method];
      if (!handler) {
        req.resume();
        const allow = Object.keys(r.methods).join(', ');
        return sendError(res, 405, `method ${method} is not allowed here; use ${allow}`, undefined, { allow });
      }
      return handler(req, res, params, url);
    }
    req.resume();
    sendError(res, 404, `no such endpoint: ${method} ${path}`);
  };
}

function intParam(url: URL, name: string, fallback: number, min: number, max: number): number | { error: string; field: string } {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) return { error: `${name} must be a whole number, got '${raw.slice(0, 50)}'`, field: name };
  const n = Number(raw);
  if (n < min) return { error: `${name} must be at least ${min}`, field: name };
  return Math.min(n, max);
}
