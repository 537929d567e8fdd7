// A relay channel's ingress URL, `<base>/hooks/<name>`: built here once (ingressUrl), and read
// back (ingressChannel: which channel a webhook URL delivers to: the relay's own ingress URLs
// first, since behind --public-url they differ from the address the editor connects to).
// Pure: no I/O.

/** Where the service posts for `channel` on the relay at `base`: `<base>/hooks/<channel>`, the name percent-encoded. */
export function ingressUrl(base: string, channel = 'default'): string {
  return `${base.replace(/\/+$/, '')}/hooks/${encodeURIComponent(channel)}`;
}

function parts(url: string): { origin: string; path: string } | undefined {
  try {
    const u = new URL(url.trim());
    if (u.search || u.hash) return undefined;
    return { origin: `${u.protocol}//${u.host.toLowerCase()}`, path: u.pathname.replace(/\/+$/, '') };
  } catch {
    return undefined;
  }
}

/** The channel `url` delivers to on the relay at `base` (its channels as the relay lists them), or undefined. */
export function ingressChannel(url: string, base: string, channels: readonly { name: string; ingressUrl?: string }[] = []): string | undefined {
  const u = parts(url);
  if (!u) return undefined;
  for (const c of channels) {
    const i = c.ingressUrl ? parts(c.ingressUrl) : undefined;
    if (i && i.origin === u.origin && i.path === u.path) return c.name;
  }
  const b = parts(base);
  if (!b || b.origin !== u.origin) return undefined;
  if (u.path === `${b.path}/hooks`) return 'default';
  const m = new RegExp(`^${b.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/hooks/([^/]+)$`).exec(u.path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}
