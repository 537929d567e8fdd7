// A "Forward Webhooks to Local App" set-up as plain data: the session, where a connected relay's
// deliveries go, the resume seq's key, a fresh channel name and the local app URL's problems.
import { routingTargets, type ForwardRouting } from '../relay/forwardRouting';

/**
 * One "Forward Webhooks to Local App" set-up: a channel on a relay (remote, or the local one at
 * http://127.0.0.1:<port>), the service webhook pointing at it, the local app. A set-up made with a
 * channel token forwards that channel only: it created no webhook (repo and webhookId are '').
 */
export interface ForwardSession {
  /** The relay's base (RelayAddress.httpUrl). */
  relay: string;
  channel: string;
  ingressUrl: string;
  /** owner/repo ('' for a channel-token set-up) */
  repo: string;
  /** '' for a channel-token set-up */
  webhookId: string;
  /** The relay's last seq when the set-up was made: forwarding never starts later than this. */
  since?: number;
  /** The local app (http://localhost:3000/webhook): the default one when some events have their own (`routes`). */
  to: string;
  /** Only these events are forwarded (the rest are skipped by the filter); absent: all the webhook sends. */
  events?: string[];
  /** An event's own app (src/core/relay/forwardRouting.ts). */
  routes?: Record<string, string>;
  /** No certificate check for the set-up's https apps on this machine. */
  skipVerify?: boolean;
}

/**
 * Where a connected relay's deliveries go: each Forward Webhooks to Local App session's app (its
 * channel), then serviceHooks.relay.forwardUrl (every other channel); each app once.
 */
export function forwardTargets(sessions: readonly ForwardRouting[], setting: string | undefined): string[] {
  return [...new Set([...sessions.flatMap((f) => routingTargets(f)), ...(setting ? [setting] : [])])];
}

/** globalState key of the last acknowledged seq for a relay and a channel (`*`: every channel the token sees). */
export function seqKey(relay: string, channel?: string): string {
  return `serviceHooks.relay.seq:${relay}#${channel ?? '*'}`;
}

/** A fresh channel name for a repository: `<repo>-<6 hex>`, within the relay's channel rule (src/core/relay/channelName.ts). */
export function channelNameFor(repo: string, randomHex: string): string {
  const base =
    repo
      .split('/')
      .pop()!
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/\.{2,}/g, '.')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 50) || 'hooks';
  return `${base}-${randomHex.slice(0, 6)}`;
}

/** Problems of the local app URL "Forward Webhooks to Local App" sends to (undefined: fine). */
export function localAppUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return 'Enter a URL such as http://localhost:3000/webhook';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Use an http:// or https:// URL';
  if (u.username || u.password) return 'The URL must not hold a user or password';
  return undefined;
}

/**
 * The channels Forward… offers to forward (admin token): every channel the relay reports, those
 * with deliveries (GET /api/status) and those it serves with none yet (GET /api/channels: a channel
 * just created has 0 deliveries and is not in the status), by name, minus those a set-up forwards.
 */
export function forwardableChannels(
  status: readonly { name: string; received: number; ingressUrl?: string }[],
  listed: readonly { name: string; received: number; ingressUrl?: string }[],
  taken: ReadonlySet<string>,
): { name: string; received: number; ingressUrl?: string }[] {
  const byName = new Map<string, { name: string; received: number; ingressUrl?: string }>();
  for (const c of [...listed, ...status]) byName.set(c.name, { ...byName.get(c.name), ...c });
  return [...byName.values()].filter((c) => !taken.has(c.name)).sort((a, b) => a.name.localeCompare(b.name));
}
