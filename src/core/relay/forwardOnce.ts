// One delivery reaches one app once, whichever parts are running: the editor's forwarder passes a
// delivery on only when nobody else already did or will. Pure (no I/O): the forward states come
// with each delivery from the relay.
import { SUBSCRIBER_TARGET, type ForwardState } from './protocol';

/** Why the editor must not post a delivery to `to` itself (undefined: it must). */
export type AlreadyForwarded = 'relay' | 'subscriber';

/** The same app for two URLs that differ only in spelling (case of the host, a default port, a trailing slash). */
export function sameApp(a: string, b: string): boolean {
  const norm = (s: string) => {
    try {
      const u = new URL(s.trim());
      return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '') || '/'}${u.search}`;
    } catch {
      return s.trim();
    }
  };
  return norm(a) === norm(b);
}

/**
 * 'relay': the relay's own --forward posts this delivery to the same app (forwarding it here too
 * would make two posts); 'subscriber': a subscriber (this editor before a Reload Window, another
 * window) already forwarded it and the relay recorded the app's 2xx.
 */
export function alreadyForwarded(forward: readonly ForwardState[], to: string): AlreadyForwarded | undefined {
  if (forward.some((f) => f.target !== SUBSCRIBER_TARGET && sameApp(f.target, to))) return 'relay';
  if (forward.some((f) => f.target === SUBSCRIBER_TARGET && f.status === 'ok')) return 'subscriber';
  return undefined;
}
