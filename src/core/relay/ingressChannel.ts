// Which channel of a relay a webhook URL delivers to: the relay's own ingress URLs first (behind
// --public-url they differ from the address the editor connects to), then <base>/hooks/<name>.
// Pure: no I/O.

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
