// Which relay channel a webhook URL delivers to, decided by what the relay says its URLs are
// (GET /api/status: its ingress base, each channel's ingress URL) and the address the editor
// connected to. Never by "loopback and a port": a relay on the internet matches as well as a local
// one, and a local relay on another port does not.
//
// Two URLs are the same ingress when they are equal after normalising: scheme and host in lower
// case, the default port dropped (80 for http, 443 for https), each path segment percent-decoded
// and encoded again the one way, trailing slashes, query and fragment ignored (the relay routes by
// path alone).

/** The URLs a relay answers ingress at. */
export interface RelayUrls {
  /**
   * Bases under which `/hooks` and `/hooks/<channel>` are the relay's ingress: the relay's reported
   * ingress base (its --public-url, else its listen address) and the address the editor connected to.
   */
  bases: readonly string[];
  /** Channel ingress URLs as the relay reports them (GET /api/status, /api/channels). */
  channels: readonly { name: string; ingressUrl?: string }[];
}

interface Normal {
  origin: string;
  /** decoded path segments, no empty ones */
  segments: string[];
}

/** A URL in the form two equal ingresses share, or undefined when it is not an http(s) URL. */
export function normalIngress(url: string): Normal | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  // URL already lower-cases scheme and host and drops a default port ('https://h:443' → port '').
  const origin = `${u.protocol}//${u.host}`;
  const segments: string[] = [];
  for (const raw of u.pathname.split('/')) {
    if (raw === '') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      seg = raw;
    }
    segments.push(seg);
  }
  return { origin, segments };
}

function sameSegments(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/**
 * The channel `webhookUrl` delivers to on the relay described by `relay`, or undefined when the URL
 * is not one of its ingresses. A channel's reported ingress URL wins; then `<base>/hooks` (channel
 * `default`) and `<base>/hooks/<name>` under any base.
 */
export function relayChannelFor(webhookUrl: string, relay: RelayUrls): string | undefined {
  const hook = normalIngress(webhookUrl);
  if (!hook) return undefined;
  for (const c of relay.channels) {
    const n = c.ingressUrl ? normalIngress(c.ingressUrl) : undefined;
    if (n && n.origin === hook.origin && sameSegments(n.segments, hook.segments)) return c.name;
  }
  for (const base of relay.bases) {
    const b = normalIngress(base);
    if (!b || b.origin !== hook.origin) continue;
    if (!sameSegments(b.segments, hook.segments.slice(0, b.segments.length))) continue;
    const rest = hook.segments.slice(b.segments.length);
    if (rest[0] !== 'hooks' || rest.length > 2) continue;
    return rest.length === 1 ? 'default' : rest[1];
  }
  return undefined;
}

/** The URLs of a relay from its status and the address used to reach it (either may be missing). */
export function relayUrlsOf(
  status: { ingressBase?: string; channels?: readonly { name: string; ingressUrl?: string }[] } | undefined,
  ...addresses: (string | undefined)[]
): RelayUrls {
  const bases = [status?.ingressBase, ...addresses].filter((b): b is string => typeof b === 'string' && b !== '');
  return { bases: [...new Set(bases)], channels: status?.channels ?? [] };
}
