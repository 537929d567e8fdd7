// Validation of the API's request bodies. Each check answers either the clean value or the first
// problem as { error, field } (field: the JSON path of the bad value, as in `[3].title`).
import { EVENT_TYPES, errorPath, isEventType, validatePayload, type EventType } from '../../src/core/events';
import { describeIssueProblem, validateIssueRecords } from '../../src/core/issues/validate';
import { webhookUrlProblem } from '../../src/core/net/webhookUrl';
import { isJsonObject } from '../shared/http';
import type { IssueRecord, WebhookFields, WebhookPatch } from './types';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string; field?: string };

const bad = (field: string | undefined, error: string): { ok: false; error: string; field?: string } =>
  field === undefined ? { ok: false, error } : { ok: false, error, field };

const isObj = isJsonObject;

export const SECRET_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A webhook URL, by the rule the editor's Add Webhook applies as you type (src/core/net/webhookUrl.ts):
 * absolute http(s) with a host, written out, no spaces, and not a link-local, unspecified or metadata
 * address (a real service refuses them; the emulator must never post to a cloud metadata service).
 */
function checkUrl(v: unknown): string | undefined {
  if (typeof v !== 'string') return 'url must be a string';
  const problem = webhookUrlProblem(v);
  switch (problem?.kind) {
    case undefined:
      return undefined;
    case 'not-absolute':
      return `url must be an absolute http(s) URL, got '${v.slice(0, 200)}'`;
    case 'scheme':
      return `url must use http or https, got '${problem.scheme}'`;
    case 'no-host':
      return `url must name a host (http://host/...), got '${v.slice(0, 200)}'`;
    case 'spaces':
      return 'url must not contain spaces';
    case 'forbidden':
      return `url must not point at ${problem.host}: ${problem.why}`;
  }
}

function checkContentType(v: unknown): string | undefined {
  if (v === 'json') return undefined;
  if (v === 'application/json') return "content_type must be 'json' (the web form labels it application/json; the API value is json)";
  return `content_type must be 'json'`;
}

function checkEvents(v: unknown): Checked<EventType[]> {
  if (!Array.isArray(v)) return bad('events', 'events must be an array of event types');
  if (v.length === 0) return bad('events', `events must not be empty; choose from ${EVENT_TYPES.join(', ')}`);
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const e: unknown = v[i];
    if (!isEventType(e)) {
      return bad(`events[${i}]`, `unknown event type ${JSON.stringify(e)}; allowed: ${EVENT_TYPES.join(', ')}`);
    }
    if (seen.has(e)) return bad(`events[${i}]`, `duplicate event type '${e}'`);
    seen.add(e);
  }
  return { ok: true, value: v as EventType[] };
}

function checkSecret(v: unknown): Checked<string | undefined> {
  if (v === undefined || v === null || v === '') return { ok: true, value: undefined };
  if (typeof v !== 'string') return bad('secret', 'secret must be a string');
  return { ok: true, value: v };
}

/** POST …/webhooks: url, content_type 'json', events; secret optional. Unknown fields are ignored. */
export function checkCreateWebhook(body: unknown): Checked<WebhookFields> {
  if (!isObj(body)) return bad(undefined, 'the body must be a JSON object with url, content_type, events and optionally secret');
  if (body.url === undefined) return bad('url', 'url is required');
  const urlError = checkUrl(body.url);
  if (urlError) return bad('url', urlError);
  if (body.content_type === undefined) return bad('content_type', "content_type is required (the value is 'json')");
  const ctError = checkContentType(body.content_type);
  if (ctError) return bad('content_type', ctError);
  if (body.events === undefined) return bad('events', 'events is required');
  const events = checkEvents(body.events);
  if (!events.ok) return events;
  const secret = checkSecret(body.secret);
  if (!secret.ok) return secret;
  return { ok: true, value: { url: body.url as string, events: events.value, ...(secret.value ? { secret: secret.value } : {}) } };
}

/** PATCH …/webhooks/<id>: any of events (replaces the subscription), url, content_type, secret. */
export function checkPatchWebhook(body: unknown): Checked<WebhookPatch> {
  if (!isObj(body)) return bad(undefined, 'the body must be a JSON object with the fields to change (events, url, content_type, secret)');
  const out: WebhookPatch = {};
  if (body.url !== undefined) {
    const e = checkUrl(body.url);
    if (e) return bad('url', e);
    out.url = body.url as string;
  }
  if (body.content_type !== undefined) {
    const e = checkContentType(body.content_type);
    if (e) return bad('content_type', e);
  }
  if (body.events !== undefined) {
    const events = checkEvents(body.events);
    if (!events.ok) return events;
    out.events = events.value;
  }
  if ('secret' in body) {
    const secret = checkSecret(body.secret);
    if (!secret.ok) return secret;
    if (secret.value) out.secret = secret.value;
    else out.clearSecret = true;
  }
  if (!['url', 'content_type', 'events', 'secret'].some((k) => k in body)) {
    return bad(undefined, 'nothing to change: send events (or url, content_type, secret)');
  }
  return { ok: true, value: out };
}

/** POST …/issues/bulk: a JSON array of issue records, checked by the rules the editor uses too (src/core/issues/validate.ts). */
export function checkIssues(body: unknown): Checked<IssueRecord[]> {
  if (!Array.isArray(body)) return bad(undefined, 'the body must be a JSON array of issue records');
  const checked = validateIssueRecords(body, { firstOnly: true });
  if (!checked.ok) {
    const p = checked.problems[0]!;
    return bad(p.field, describeIssueProblem(p));
  }
  return { ok: true, value: checked.records };
}

/** POST …/secrets: name, value, protected (optional boolean). */
export function checkSecretBody(body: unknown): Checked<{ name: string; value: string; protected: boolean }> {
  if (!isObj(body)) return bad(undefined, 'the body must be a JSON object with name, value and optionally protected');
  if (typeof body.name !== 'string') return bad('name', 'name must be a string');
  if (!SECRET_NAME_RE.test(body.name)) {
    return bad('name', 'name must start with a letter or underscore and hold only letters, digits and underscores');
  }
  if (typeof body.value !== 'string') return bad('value', 'value must be a string');
  if (body.protected !== undefined && typeof body.protected !== 'boolean') return bad('protected', 'protected must be a boolean');
  return { ok: true, value: { name: body.name, value: body.value, protected: body.protected === true } };
}

/** POST /_emulator/repos/<org>/<repo>/events: { event, payload? }. */
export function checkFire(body: unknown): Checked<{ event: EventType; payload?: unknown }> {
  if (!isObj(body)) return bad(undefined, 'the body must be a JSON object: { "event": "<type>", "payload"?: {...} }');
  if (!isEventType(body.event)) {
    return bad('event', `event must be one of ${EVENT_TYPES.join(', ')}, got ${JSON.stringify(body.event) ?? 'nothing'}`);
  }
  if (body.payload === undefined) return { ok: true, value: { event: body.event } };
  const v = validatePayload(body.event, body.payload);
  if (!v.ok) {
    const path = errorPath(v.errors[0]!);
    const field = path === '' ? 'payload' : path.startsWith('[') ? `payload${path}` : `payload.${path}`;
    return bad(field, `payload is not a valid ${body.event} payload: ${v.errors.join('; ')}`);
  }
  return { ok: true, value: { event: body.event, payload: body.payload } };
}
