// The state file's shape, checked in full when it is loaded: a file edited by hand or written by
// another program must stop the emulator with the path of the first bad value, not load and then
// answer 500 to every request (`webhooks: [null]`). Issues are put in number order.
import { isEventType } from '../../src/core/events';
import { forbiddenTarget } from '../../src/core/net/address';
import type { StateFile } from './types';

type Obj = Record<string, unknown>;

/** The first problem of a state file, with the JSON path of the bad value. */
class ShapeError extends Error {}

/** The state, or the first problem (`webhooks[0] must be an object`). */
export function checkState(data: unknown): { ok: true; state: StateFile } | { ok: false; error: string } {
  try {
    const s = obj(data, 'the state');
    if (s.version !== 1) throw new ShapeError(`version must be 1, got ${JSON.stringify(s.version)}`);
    if (!Number.isInteger(s.next_webhook_id) || (s.next_webhook_id as number) < 1) throw new ShapeError('next_webhook_id must be a positive integer');
    for (const [key, repo] of Object.entries(obj(s.repos, 'repos'))) checkRepo(repo, `repos[${JSON.stringify(key)}]`);
    const ids = checkWebhooks(arr(s.webhooks, 'webhooks'), s.next_webhook_id as number);
    for (const [id, list] of Object.entries(obj(s.deliveries, 'deliveries'))) {
      const at = `deliveries[${JSON.stringify(id)}]`;
      if (!ids.has(id)) throw new ShapeError(`${at}: there is no webhook ${id}`);
      arr(list, at).forEach((d, i) => checkDelivery(d, `${at}[${i}]`, id));
    }
    for (const repo of Object.values(s.repos as Record<string, { issues: { number: number }[] }>)) repo.issues.sort((a, b) => a.number - b.number);
    return { ok: true, state: data as StateFile };
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, error: err.message };
    throw err;
  }
}

function checkWebhooks(list: unknown[], nextId: number): Set<string> {
  const ids = new Set<string>();
  list.forEach((v, i) => {
    const at = `webhooks[${i}]`;
    const w = obj(v, at);
    const id = str(w.id, `${at}.id`);
    if (ids.has(id)) throw new ShapeError(`${at}.id: webhook id ${id} repeats an earlier one`);
    ids.add(id);
    if (/^\d+$/.test(id) && Number(id) >= nextId) throw new ShapeError(`next_webhook_id (${nextId}) must be above every webhook id (${at}.id is ${id})`);
    if (!/^[^/]+\/[^/]+$/.test(str(w.repo, `${at}.repo`))) throw new ShapeError(`${at}.repo must be <org>/<repo>`);
    checkUrl(str(w.url, `${at}.url`), `${at}.url`);
    if (w.content_type !== 'json') throw new ShapeError(`${at}.content_type must be 'json'`);
    arr(w.events, `${at}.events`).forEach((e, j) => {
      if (!isEventType(e)) throw new ShapeError(`${at}.events[${j}] is not an event type: ${JSON.stringify(e)}`);
    });
    str(w.created_at, `${at}.created_at`);
    if (w.secret !== undefined) str(w.secret, `${at}.secret`);
  });
  return ids;
}

function checkUrl(text: string, at: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ShapeError(`${at} must be an absolute URL`);
  }
  const why = forbiddenTarget(url);
  if (why) throw new ShapeError(`${at}: ${why}`);
}

function checkDelivery(v: unknown, at: string, webhookId: string): void {
  const d = obj(v, at);
  str(d.id, `${at}.id`);
  if (d.webhook_id !== webhookId) throw new ShapeError(`${at}.webhook_id must be ${JSON.stringify(webhookId)}, the webhook it is listed under`);
  for (const k of ['event', 'delivered_at'] as const) str(d[k], `${at}.${k}`);
  for (const k of ['success', 'redelivery'] as const) bool(d[k], `${at}.${k}`);
  statusOrNull(d.status, `${at}.status`);
  if (d.next_attempt_at !== null) str(d.next_attempt_at, `${at}.next_attempt_at`);
  if (d.error !== undefined) str(d.error, `${at}.error`);
  if (!Number.isInteger(d.auto_attempts) || (d.auto_attempts as number) < 0) throw new ShapeError(`${at}.auto_attempts must be a whole number`);
  const request = obj(d.request, `${at}.request`);
  str(request.body, `${at}.request.body`);
  for (const [k, h] of Object.entries(obj(request.headers, `${at}.request.headers`))) str(h, `${at}.request.headers[${JSON.stringify(k)}]`);
  arr(d.attempts, `${at}.attempts`).forEach((a, i) => {
    const t = obj(a, `${at}.attempts[${i}]`);
    str(t.at, `${at}.attempts[${i}].at`);
    bool(t.success, `${at}.attempts[${i}].success`);
    statusOrNull(t.status, `${at}.attempts[${i}].status`);
    if (typeof t.duration_ms !== 'number') throw new ShapeError(`${at}.attempts[${i}].duration_ms must be a number`);
  });
}

function checkRepo(v: unknown, at: string): void {
  const r = obj(v, at);
  arr(r.issues, `${at}.issues`).forEach((x, i) => {
    const p = `${at}.issues[${i}]`;
    const issue = obj(x, p);
    if (!Number.isInteger(issue.number) || (issue.number as number) < 1) throw new ShapeError(`${p}.number must be a positive integer`);
    for (const k of ['title', 'body'] as const) str(issue[k], `${p}.${k}`);
    for (const k of ['labels', 'assignees'] as const) arr(issue[k], `${p}.${k}`);
    if (issue.state !== 'open' && issue.state !== 'closed') throw new ShapeError(`${p}.state must be 'open' or 'closed'`);
  });
  arr(r.secrets, `${at}.secrets`).forEach((x, i) => {
    const p = `${at}.secrets[${i}]`;
    const secret = obj(x, p);
    for (const k of ['name', 'created_at', 'updated_at'] as const) str(secret[k], `${p}.${k}`);
    bool(secret.protected, `${p}.protected`);
  });
}

function obj(v: unknown, at: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ShapeError(`${at} must be an object`);
  return v as Obj;
}

function arr(v: unknown, at: string): unknown[] {
  if (!Array.isArray(v)) throw new ShapeError(`${at} must be an array`);
  return v;
}

function str(v: unknown, at: string): string {
  if (typeof v !== 'string') throw new ShapeError(`${at} must be a string`);
  return v;
}

function bool(v: unknown, at: string): void {
  if (typeof v !== 'boolean') throw new ShapeError(`${at} must be true or false`);
}

function statusOrNull(v: unknown, at: string): void {
  if (v !== null && !Number.isInteger(v)) throw new ShapeError(`${at} must be an HTTP status or null`);
}
