// Relay addresses as plain data: what "Connect to Relay…" accepts, the short form of a URL the
// status bar shows, and whether a service can reach a relay on this machine.

export interface RelayAddress {
  /** http(s)://host[:port] — the REST base (no trailing slash). */
  httpUrl: string;
  /** ws(s)://host[:port]/ws */
  wsUrl: string;
  /** host[:port] as shown to people (relay.example.com). */
  label: string;
  tls: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Parses what a person types into "Connect to Relay…": `relay.example.com`, `https://relay.example.com:8443`,
 * `wss://…/ws`. No scheme means https. Plain http/ws only for loopback: a token must not cross the
 * network in clear text. Returns a problem sentence instead of throwing.
 */
export function parseRelayAddress(input: string): RelayAddress | { problem: string } {
  const raw = input.trim();
  if (!raw) return { problem: 'Enter the relay address, e.g. https://relay.example.com' };
  // eslint-disable-next-line no-control-regex -- an address with a control character is refused
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) return { problem: 'The address contains spaces or control characters.' };
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return { problem: `'${raw}' is not an address: use https://HOST[:PORT]` };
  }
  const scheme = u.protocol.replace(/:$/, '').toLowerCase();
  if (!['http', 'https', 'ws', 'wss'].includes(scheme)) return { problem: `Use https:// or wss:// (got ${scheme}://).` };
  if (u.username || u.password) return { problem: 'Put the token in the token box, not in the address.' };
  if (u.search || u.hash) return { problem: 'The address takes no query or fragment.' };
  const tls = scheme === 'https' || scheme === 'wss';
  if (!tls && !LOOPBACK.has(u.hostname)) return { problem: `Use https:// for ${u.hostname}: the token must not travel unencrypted.` };
  const path = u.pathname.replace(/\/+$/, '').replace(/\/ws$/, '');
  const host = u.host; // keeps a non-default port
  const httpUrl = `${tls ? 'https' : 'http'}://${host}${path}`;
  const wsUrl = `${tls ? 'wss' : 'ws'}://${host}${path}/ws`;
  return { httpUrl, wsUrl, label: `${host}${path}`, tls };
}

/** "localhost:3000" for http://localhost:3000/webhook — the status bar's short form of a URL. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.host;
  } catch {
    return url;
  }
}

/** True when the service at `baseUrl` is on this machine or a private network, so it can reach a relay on this machine. */
export function serviceIsLocal(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (LOOPBACK.has(host) || host === '::1' || host.endsWith('.local') || host.endsWith('.localhost')) return true;
  const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (!m) return /^f[cd][0-9a-f]{2}:/i.test(host); // IPv6 unique local
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/**
 * The WebSocket URL of a subscription of every channel (the admin token) that posts only `channels`
 * to an app (its forward set-ups'): `posts=` tells the relay, so a replay to subscribers counts it
 * for those channels alone.
 */
export function postingWsUrl(wsUrl: string, channels: readonly string[]): string {
  const u = new URL(wsUrl);
  u.searchParams.set('posts', [...new Set(channels)].join(','));
  return u.toString();
}
