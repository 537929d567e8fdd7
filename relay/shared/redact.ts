// The one redaction every printer of the CLI and the relay uses (log lines in text and JSON, usage
// errors, failures, the channels command's hints, metric labels): whatever a message says, these
// never reach the output:
//   - URL credentials: scheme://user:password@ (a password may hold '@': up to the last one)
//   - Authorization values: Bearer, Basic and Token schemes, and any `authorization: [scheme] …`
//   - query values named like credentials: ?token=, &secret=, access_token=, api_key=, sig=, …
//   - secrets in URL paths (Slack- and Discord-style webhook URLs): long segments of letters and digits
//   - values the caller knows are secret (the admin token, channel tokens, signing secrets)
// and control characters are escaped (\n, \r, \x1b, C1, bidi overrides: src/core/text/controls.ts,
// the one escaping every printer of a delivery's text uses), so a value cannot forge a log line.
import { escapeControls } from '../../src/core/text/controls';

export const REDACTED = '[redacted]';

/** Values shorter than this are not searched for: they would blank out ordinary words. */
export const MIN_REDACTED = 4;

const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;
const AUTHORIZATION = /(\bauthorization["']?\s*[:=]\s*["']?)([A-Za-z]+\s+)?[^\s"',;]+/gi;
const BEARER = /\b(Bearer)\s+[^\s"',;]+/gi;
// `Basic` capitalized as in a header; `Token`/`token` only before a value with a digit (prose: "Token refused").
const BASIC_OR_TOKEN = /\b(Basic)\s+[A-Za-z0-9+/]{4,}=*|\b([Tt]oken)\s+(?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{8,}=*/g;
const QUERY = /([?&;][^=&\s#"']*(?:token|secret|passw(?:or)?d|pwd|key|sig|signature|auth|credential)[^=&\s#"']*=)[^&\s#"']*/gi;
const HTTP_URL = /\bhttps?:\/\/[^\s"'<>]+/gi;

/** A secret-looking path segment: 16+ characters of a token alphabet with a letter and a digit, or 32+. */
function secretSegment(segment: string): boolean {
  if (!/^[A-Za-z0-9._~+=-]+$/.test(segment)) return false;
  return segment.length >= 32 || (segment.length >= 16 && /\d/.test(segment) && /[A-Za-z]/.test(segment));
}

/** An http(s) URL with its secret-looking path segments replaced (the origin and the other segments stay). */
export function redactUrlPath(url: string): string {
  const m = /^(https?:\/\/[^/?#]*)([^?#]*)(.*)$/i.exec(url);
  if (!m) return url;
  const path = m[2]!
    .split('/')
    .map((s) => (secretSegment(s) ? REDACTED : s))
    .join('/');
  return `${m[1]}${path}${m[3]}`;
}

/** A pattern of known secret values (longest first, so one that contains another goes whole), or undefined. */
export function secretsPattern(values: Iterable<string | undefined>): RegExp | undefined {
  const kept = [...new Set([...values].filter((v): v is string => typeof v === 'string' && v.length >= MIN_REDACTED))];
  const sorted = kept.sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return sorted.length ? new RegExp(sorted.join('|'), 'g') : undefined;
}

/** `text` with every credential form above replaced by [redacted] and control characters escaped. */
export function redact(text: string, secrets?: RegExp): string {
  let out = secrets ? text.replace(secrets, REDACTED) : text;
  out = out
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(AUTHORIZATION, (_m, header: string, scheme: string | undefined) => `${header}${scheme ?? ''}${REDACTED}`)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(BASIC_OR_TOKEN, (_m, basic: string | undefined, token: string | undefined) => `${basic ?? token} ${REDACTED}`)
    .replace(QUERY, `$1${REDACTED}`)
    .replace(HTTP_URL, redactUrlPath);
  return escapeControls(out);
}
