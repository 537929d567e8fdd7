// "Copy as cURL": a shell command that re-sends a delivery, with secrets and signatures redacted.
import { hasControls } from '../text/controls';

const REDACT = /^(authorization|proxy-authorization|cookie|set-cookie|[a-z0-9-]*(signature|token|secret|api-?key|password|credential|session)[a-z0-9-]*)$/i;

export const REDACTED = '<redacted>';

export function isSensitiveHeader(name: string): boolean {
  return REDACT.test(name);
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const SKIP = new Set(['content-length', 'host', 'connection', 'transfer-encoding', 'accept-encoding']);

/** The body as text when it is valid UTF-8, otherwise undefined (the bytes must then be kept as bytes). */
export function utf8OrUndefined(body: string | Uint8Array): string | undefined {
  if (typeof body === 'string') return body;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return undefined;
  }
}

/**
 * A POSIX `printf` format that writes exactly `bytes`: printable ASCII as is, every other byte as an
 * octal escape (POSIX printf has no \x), `%` and `\` escaped; shell-quoted.
 */
export function printfBytes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x25) out += '%%';
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += '\\' + b.toString(8).padStart(3, '0');
  }
  return `printf ${shellQuote(out)}`;
}

/**
 * Whether a body can be pasted into a shell as a quoted string unchanged: valid UTF-8 with no
 * control character other than tab and newline (an ESC or CR in a pasted command is acted on by the
 * terminal, and C1 controls by some), so the text is the body.
 */
export function isPrintableBody(body: string | Uint8Array): boolean {
  const text = utf8OrUndefined(body);
  // eslint-disable-next-line no-control-regex
  return text !== undefined && !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text);
}

/**
 * The curl command. A body that is not printable (not UTF-8, or with control characters) cannot be
 * pasted as a shell string safely and exactly, so it is written by `printf` (octal escapes) and
 * piped to `--data-binary @-`.
 */
export function buildCurl(url: string, headers: Readonly<Record<string, string>>, body: string | Uint8Array): string {
  const printable = isPrintableBody(body);
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const lines = [`${printable ? '' : `${printfBytes(bytes)} | `}curl -X POST ${shellQuote(redactUrl(url))}`];
  for (const [name, value] of Object.entries(headers)) {
    if (SKIP.has(name.toLowerCase())) continue;
    const v = isSensitiveHeader(name) ? REDACTED : value;
    lines.push(`  -H ${headerArg(`${name}: ${v}`.replace(/[\r\n]/g, ' '))}`);
  }
  lines.push(printable ? `  --data-binary ${shellQuote(utf8OrUndefined(body)!)}` : '  --data-binary @-');
  return lines.join(' \\\n');
}

/**
 * A header line as a shell word: quoted, or, when it holds a control character (an ESC or a C1
 * control such as U+009B would reach the terminal the command is pasted into), written by printf
 * from its bytes (latin1, as Node reads a header; UTF-8 when a character is beyond it).
 */
function headerArg(line: string): string {
  if (!hasControls(line)) return shellQuote(line);
  const bytes = /[\u0100-\uffff]/.test(line) ? new TextEncoder().encode(line) : Uint8Array.from(line, (c) => c.charCodeAt(0));
  return `"$(${printfBytes(bytes)})"`;
}

/** Headers with the sensitive ones' values replaced (Open Delivery, Copy as cURL). */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, isSensitiveHeader(k) ? REDACTED : v]));
}

/** Credentials in the URL (user info, query) are redacted too. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = REDACTED;
      u.password = '';
    }
    for (const key of [...u.searchParams.keys()]) {
      if (/token|secret|key|sig|password|auth/i.test(key)) u.searchParams.set(key, REDACTED);
    }
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * How to re-sign what Copy as cURL copies (its signature is redacted): the same body bytes sent by
 * `service-hooks send <event>` with the secret from the environment ($WEBHOOK_SECRET, never on the
 * clipboard), which signs them. `event`: the delivery's X-Service-Event (the page's bundle imports
 * this file, so it takes no header names from the node-only signing module).
 */
export function buildResignCommand(url: string, event: string, body: string | Uint8Array): string {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const text = isPrintableBody(bytes) ? utf8OrUndefined(bytes)! : undefined;
  const feed = text !== undefined ? `printf '%s' ${shellQuote(text)}` : printfBytes(bytes);
  return `${feed} | service-hooks send ${shellQuote(event)} --to ${shellQuote(redactUrl(url))} --payload - --secret "$WEBHOOK_SECRET"`;
}
