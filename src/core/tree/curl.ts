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

export function buildCurl(url: string, headers: Readonly<Record<string, string>>, body: string): string {
  const lines = [`curl -X POST ${shellQuote(redactUrl(url))}`];
  for (const [name, value] of Object.entries(headers)) {
    if (SKIP.has(name.toLowerCase())) continue;
    const v = isSensitiveHeader(name) ? REDACTED : value;
    lines.push(`  -H ${shellQuote(`${name}: ${v}`)}`);
  }
  lines.push(`  --data-binary ${shellQuote(body)}`);
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
