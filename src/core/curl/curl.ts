// "Copy as cURL": a shell command that re-sends a delivery, with secrets and signatures redacted.

const REDACT = /^(authorization|proxy-authorization|cookie|x-[a-z0-9-]*signature[a-z0-9-]*|x-[a-z0-9-]*token[a-z0-9-]*|x-[a-z0-9-]*secret[a-z0-9-]*)$/i;

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
 * The curl command. A body that is not valid UTF-8 cannot be pasted as a shell string without
 * changing its bytes, so it is written by `printf` (octal escapes) and piped to `--data-binary @-`.
 */
export function buildCurl(url: string, headers: Readonly<Record<string, string>>, body: string | Uint8Array): string {
  const text = utf8OrUndefined(body);
  const lines = [`${text === undefined ? `${printfBytes(body as Uint8Array)} | ` : ''}curl -X POST ${shellQuote(redactUrl(url))}`];
  for (const [name, value] of Object.entries(headers)) {
    if (SKIP.has(name.toLowerCase())) continue;
    const v = isSensitiveHeader(name) ? REDACTED : value;
    lines.push(`  -H ${shellQuote(`${name}: ${v}`)}`);
  }
  lines.push(text === undefined ? '  --data-binary @-' : `  --data-binary ${shellQuote(text)}`);
  return lines.join(' \\\n');
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
