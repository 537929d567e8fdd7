// The emulator's route table. Statuses and bodies where the spec says "not shown" are the
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
//          url: absolute http(s) with a host; link-local (169.254.0.0/16, fe80::/10), unspecified
//          (0.0.0.0/8, ::) and cloud metadata addresses are refused with 400 (src/core/net/address.ts)
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
//   POST   /api/v1/repos/<org>/<repo>/issues/bulk             → 201 { imported, replaced, issues: [{ number }] }
//          (records with a number already imported replace the earlier one; `replaced` counts them)
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
//   GET  /runner/install.sh                                  → 200 text/plain, no auth: a POSIX sh installer of a
//        fake `runner` (spec §5 "Runner registration"; see runnerScript.ts)
//
// With deliveriesEndpoint off (`emulate --documented-only`) the two GET deliveries routes answer 404
// like any unknown route: the documented service shows deliveries in its web UI only.
//
// Each webhook keeps its newest 500 deliveries (maxDeliveriesPerWebhook); one with a retry due is kept.
// Repositories need no set-up: any <org>/<repo> exists on first use (names: letters, digits, . _ -;
// anything else is 404).
import { createWebhook, deleteWebhook, listWebhooks, updateWebhook } from './handlers/webhooks';
import { deliveryDetail, listDeliveries, ping, retryDelivery } from './handlers/deliveries';
import { createSecret, importIssues } from './handlers/imports';
import { fireEvent, listIssues, listSecrets } from './handlers/emulatorOnly';
import { runnerInstaller } from './handlers/runner';
import type { Handler } from './handlers/context';

export interface Route {
  pattern: RegExp;
  /** An emulator extension beyond the documented interface (served unless deliveriesEndpoint is off). */
  extension?: boolean;
  methods: Partial<Record<string, Handler>>;
}

const SEG = '([^/]+)';
const route = (path: string, methods: Route['methods'], extension?: boolean): Route => ({
  pattern: new RegExp(`^${path.replaceAll('<>', SEG)}$`),
  methods,
  ...(extension ? { extension } : {}),
});

/** Paths with `<>` for a segment; those under /api/v1 and /_emulator need the bearer token (router.ts). */
export const ROUTES: readonly Route[] = [
  route('/api/v1/repos/<>/<>/webhooks', { GET: listWebhooks, POST: createWebhook }),
  route('/api/v1/repos/<>/<>/webhooks/<>', { PATCH: updateWebhook, DELETE: deleteWebhook }),
  route('/api/v1/webhooks/<>/ping', { POST: ping }),
  route('/api/v1/webhooks/<>/deliveries', { GET: listDeliveries }, true),
  route('/api/v1/webhooks/<>/deliveries/<>', { GET: deliveryDetail }, true),
  route('/api/v1/webhooks/<>/deliveries/<>/retry', { POST: retryDelivery }),
  route('/api/v1/repos/<>/<>/issues/bulk', { POST: importIssues }),
  route('/api/v1/repos/<>/<>/secrets', { POST: createSecret }),
  route('/_emulator/repos/<>/<>/events', { POST: fireEvent }),
  route('/_emulator/repos/<>/<>/issues', { GET: listIssues }),
  route('/_emulator/repos/<>/<>/secrets', { GET: listSecrets }),
  route('/runner/install.sh', { GET: runnerInstaller, HEAD: runnerInstaller }),
];
