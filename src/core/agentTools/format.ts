// Tool results as short, structured text a model reads well, with every secret redacted.
import type { DeliveryAttempt, DeliveryRecord, Webhook } from '../client/types';
import { isSensitiveHeader, REDACTED } from '../curl/curl';
import type { Finding } from '../lint/types';
import type { ForwardAttempt, RelayDeliverySummary } from '../relay/protocol';

export const BODY_LIMIT = 8 * 1024;
export const TEXT_LIMIT = 24 * 1024;

export function serviceOutcome(d: Pick<DeliveryRecord, 'success' | 'status' | 'error'>): string {
  if (d.success) return `OK (HTTP ${d.status ?? '2xx'})`;
  if (d.status !== null) return `FAILED (HTTP ${d.status})`;
  return `FAILED (${d.error ?? 'no response'})`;
}

export function webhookLine(w: Webhook, last: DeliveryRecord | undefined | 'not offered'): string {
  const lastText =
    last === 'not offered'
      ? 'last delivery: the service lists none (see the relay channel)'
      : last
        ? `last delivery: ${last.event} ${serviceOutcome(last)} at ${last.delivered_at}`
        : 'no delivery yet';
  return `- webhook ${w.id}: ${w.url} · events ${w.events.join(', ') || 'none'} · ${w.secret_set ? 'signed (secret set)' : 'UNSIGNED (no secret)'} · ${lastText}`;
}

export function serviceDeliveryLine(d: DeliveryRecord): string {
  const next = d.next_attempt_at ? ` · next attempt ${d.next_attempt_at}` : '';
  return `- delivery ${d.id}: ${d.event} at ${d.delivered_at} · ${serviceOutcome(d)} · ${d.attempts.length} attempt(s)${d.redelivery ? ' · redelivery' : ''}${next}`;
}

function forwardText(s: RelayDeliverySummary): string {
  if (s.forward.length === 0) return 'not forwarded (no target)';
  return s.forward.map((f) => `${f.status.toUpperCase()}${f.lastStatus ? ` HTTP ${f.lastStatus}` : ''} to ${f.target}`).join('; ');
}

export function relayDeliveryLine(s: RelayDeliverySummary): string {
  const failed = s.verification === 'rejected' || s.forward.some((f) => f.status === 'failed');
  return `- seq ${s.seq}: ${s.event ?? '(no event header)'} at ${s.receivedAt} · channel ${s.channel} · signature ${s.verification}${s.reason ? ` (${s.reason})` : ''} · ${forwardText(s)}${failed ? ' · FAILED' : ''}${s.deliveryId ? ` · delivery id ${s.deliveryId}` : ''}`;
}

export function serviceAttemptLine(a: DeliveryAttempt): string {
  return `- ${a.at}: ${a.success ? 'OK' : 'FAILED'} ${a.status !== null ? `HTTP ${a.status}` : (a.error ?? 'no response')} in ${a.duration_ms} ms`;
}

export function relayAttemptLine(a: ForwardAttempt): string {
  return `- ${a.at}: ${a.ok ? 'OK' : 'FAILED'} ${a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer')} from ${a.target} in ${a.durationMs} ms${a.replay ? ' (replay)' : ''}`;
}

/** Headers with every signature, token, secret, cookie and authorization value redacted. */
export function headerLines(headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([k, v]) => `${k}: ${isSensitiveHeader(k) ? REDACTED : v}`);
}

/** A body as text, cut at BODY_LIMIT; a body that is not UTF-8 is described, not dumped. */
export function bodyText(body: Uint8Array): string {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const text = buf.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(buf) === false) return `(${buf.length} bytes, not UTF-8 text)`;
  return text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}\n… (cut: ${buf.length} bytes in all)` : text;
}

export function findingLine(f: Finding): string {
  const fix = f.replacement !== undefined ? ` → fix: ${JSON.stringify(f.replacement)}` : ' (no automatic fix: needs a decision)';
  return `- ${f.line}:${f.column} [${f.rule}] ${f.message}${fix}`;
}

/** Every known secret replaced, then the text cut to TEXT_LIMIT. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  return out.length > TEXT_LIMIT ? `${out.slice(0, TEXT_LIMIT)}\n… (cut)` : out;
}
