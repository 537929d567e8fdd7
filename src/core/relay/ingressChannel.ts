// A relay channel's ingress URL, `<base>/hooks/<name>`: built here once (ingressUrl), and read back
// here once: the relay routes a request's path with hookChannel, and the editor asks relayChannelFor
// which channel a webhook URL delivers to, which answers what the relay would route that URL to
// (the tree and the signing secret both ask it, so they cannot name different channels).
// Pure: no I/O.
//
// What the relay does, and so what relayChannelFor answers (test/unit/core/relay/ingressChannel.test.ts
// checks each case against a running relay):
//   scheme and host   in any case, the default port dropped (the URL parser does both)
//   query, fragment   ignored: the relay routes by path alone; a fragment is never sent
//   `/hooks`, `/hooks/`  channel `default`
//   a percent-encoded name  decoded (`my%2Dch` is `my-ch`); a malformed escape is no channel (400)
//   a name the relay refuses  no channel: `a/`, `a/b`, `a%2Fb`, `team%20a` (400, CHANNEL_NAME_RULE)
//   `//hooks/a`       no channel: the relay reads a target starting `//` as a host (404)
//   another path prefix  no channel, unless it is the base's own path (a relay behind --public-url)
import { CHANNEL_NAME_RE } from './channelName';

/** Where the service posts for `channel` on the relay at `base`: `<base>/hooks/<channel>`, the name percent-encoded. */
export function ingressUrl(base: string, channel = 'default'): string {
  return `${base.replace(/\/+$/, '')}/hooks/${encodeURIComponent(channel)}`;
}

/** A request target (`req.url`) as the relay reads it: a target `//x/y` is host `x`, path `/y`. */
export function requestTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://relay.invalid');
  } catch {
    return undefined;
  }
}

/** POST /hooks/<name> with a name needing no decoding (no '%', '.', query): the relay routes it without a URL object. */
export const PLAIN_HOOK_RE = /^\/hooks\/([A-Za-z0-9][A-Za-z0-9_-]{0,63})$/;

/** Whether the relay's ingress answers `path` (a request's path): `/hooks` and `/hooks/…`. */
export function isHookPath(path: string): boolean {
  return path === '/hooks' || path.startsWith('/hooks/');
}

/** The channel a /hooks path names ('default' for /hooks and /hooks/), or undefined for bad percent-encoding. */
export function hookChannel(path: string): string | undefined {
  if (path === '/hooks' || path === '/hooks/') return 'default';
  try {
    return decodeURIComponent(path.slice('/hooks/'.length));
  } catch {
    return undefined;
  }
}

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

/** Origin and path of an http(s) URL; query and fragment dropped (the relay routes by path). */
function originPath(url: string): { origin: string; path: string } | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  // URL already lower-cases scheme and host and drops a default port ('https://h:443' → port '').
  return { origin: `${u.protocol}//${u.host}`, path: u.pathname };
}

/**
 * The channel `webhookUrl` delivers to on the relay described by `relay`, or undefined when the
 * relay would not take a delivery there (not its ingress, or a name it refuses). A channel's
 * reported ingress URL wins; then `<base>/hooks` (channel `default`) and `<base>/hooks/<name>`
 * under any base, read as the relay reads them (hookChannel).
 */
export function relayChannelFor(webhookUrl: string, relay: RelayUrls): string | undefined {
  const hook = originPath(webhookUrl);
  if (!hook) return undefined;
  for (const c of relay.channels) {
    const n = c.ingressUrl ? originPath(c.ingressUrl) : undefined;
    if (n && n.origin === hook.origin && n.path === hook.path) return c.name;
  }
  for (const base of relay.bases) {
    const b = originPath(base);
    if (!b || b.origin !== hook.origin) continue;
    const prefix = b.path.replace(/\/+$/, '');
    if (!hook.path.startsWith(`${prefix}/`)) continue;
    const path = requestTarget(hook.path.slice(prefix.length))?.pathname;
    if (path === undefined || !isHookPath(path)) continue;
    const channel = hookChannel(path);
    if (channel !== undefined && CHANNEL_NAME_RE.test(channel)) return channel;
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
