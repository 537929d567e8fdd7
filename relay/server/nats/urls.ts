// `relay --store nats://…` values, parsed without loading the NATS client (the CLI checks them first).

/** A `--store` value that names no usable NATS server. */
export class NatsUrlError extends Error {
  override name = 'NatsUrlError';
}

export function parseNatsServers(value: string): { servers: string[]; user?: string; pass?: string; tls: boolean } {
  const servers: string[] = [];
  let user: string | undefined;
  let pass: string | undefined;
  let tls = false;
  for (const raw of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new NatsUrlError(`--store: '${raw}' is not a URL (expected nats://HOST:PORT or tls://HOST:PORT)`);
    }
    if (u.protocol !== 'nats:' && u.protocol !== 'tls:') throw new NatsUrlError(`--store: '${u.protocol}' is not a NATS scheme (nats:// or tls://)`);
    if (!u.hostname) throw new NatsUrlError(`--store: '${raw}' has no host`);
    if (u.username) user = decodeURIComponent(u.username);
    if (u.password) pass = decodeURIComponent(u.password);
    if (u.protocol === 'tls:') tls = true;
    servers.push(`${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port || '4222'}`);
  }
  if (servers.length === 0) throw new NatsUrlError('--store: no NATS server given');
  return { servers, ...(user !== undefined ? { user } : {}), ...(pass !== undefined ? { pass } : {}), tls };
}
