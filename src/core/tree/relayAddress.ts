// Relay addresses and the status bar text, as plain data: what "Connect to Relay…" accepts and
// what the status bar shows for a local or a remote relay.
import type { RelayState } from './relayModel';

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

/** globalState key of the last acknowledged seq for a relay and a channel (`*`: every channel the token sees). */
export function seqKey(relay: string, channel?: string): string {
  return `serviceHooks.relay.seq:${relay}#${channel ?? '*'}`;
}

export interface StatusBarInput {
  state: RelayState;
  /** Local relay: its port. */
  port?: number;
  /** Remote relay: its label (relay.example.com). */
  remote?: string;
  /** Where deliveries are forwarded (URL): the first of forwardTargets(). */
  forwardTo?: string;
  /** How many other apps deliveries are forwarded to as well. */
  otherTargets?: number;
  /** A problem sentence (failed start, forwarding failing). */
  detail?: string;
  /** The relay process was started by this window. */
  ownsProcess?: boolean;
  /** Forwarding to the local app is failing (retrying). */
  forwardFailing?: boolean;
}

export interface StatusBarModel {
  text: string;
  tooltip: string;
  /** Command id run on click: the relay menu (relayMenu.ts), never an action that destroys at once. */
  command?: 'serviceHooks.relayMenu';
}

const MENU = 'serviceHooks.relayMenu';

/** `relay.example.com ⇄ localhost:3000` plus the state; `Relay :8788` for a local relay. */
export function relayStatusBar(s: StatusBarInput): StatusBarModel {
  if (s.remote) return remoteStatusBar(s, s.remote);
  switch (s.state) {
    case 'running':
      return {
        text: `$(radio-tower) Relay :${s.port}`,
        tooltip: `Relay running on port ${s.port}${s.ownsProcess ? ' (started here)' : ''}. Click for relay actions.`,
        command: MENU,
      };
    case 'starting':
    case 'connecting':
      return { text: '$(loading~spin) Relay', tooltip: s.state === 'starting' ? 'Relay starting…' : `Connecting to the relay on port ${s.port ?? '?'}…`, command: MENU };
    case 'offline':
    case 'failed':
    case 'stopped':
      return {
        text: s.state === 'failed' ? '$(error) Relay' : '$(debug-disconnect) Relay off',
        tooltip: s.detail ?? 'Relay not running. Click for relay actions.',
        command: MENU,
      };
  }
}

/**
 * Where a connected relay's deliveries go: each Forward Webhooks to Local App session's app (its
 * channel), then serviceHooks.relay.forwardUrl (every other channel); each app once.
 */
export function forwardTargets(sessions: readonly { to: string }[], setting: string | undefined): string[] {
  return [...new Set([...sessions.map((f) => f.to), ...(setting ? [setting] : [])])];
}

function remoteStatusBar(s: StatusBarInput, remote: string): StatusBarModel {
  const others = s.otherTargets ?? 0;
  const pair = s.forwardTo ? `${remote} ⇄ ${shortUrl(s.forwardTo)}${others ? ` +${others}` : ''}` : remote;
  const forwarding = s.forwardTo ? `forwarding to ${s.forwardTo}${others ? ` and ${others} other app${others > 1 ? 's' : ''}` : ''}` : 'not forwarding (Forward Webhooks to Local App… sets it up)';
  switch (s.state) {
    case 'running':
      return s.forwardFailing
        ? { text: `$(warning) ${pair}`, tooltip: `Connected to ${remote}; ${s.detail ?? 'the local app does not answer 2xx'}: retrying. Click for relay actions.`, command: MENU }
        : { text: `$(radio-tower) ${pair}`, tooltip: `Connected to ${remote}, ${forwarding}. Click for relay actions.`, command: MENU };
    case 'starting':
    case 'connecting':
      return { text: `$(loading~spin) ${pair}`, tooltip: `Connecting to ${remote}…${s.detail ? ` (${s.detail})` : ''}`, command: MENU };
    case 'offline':
    case 'failed':
    case 'stopped':
      return { text: `$(debug-disconnect) ${pair}`, tooltip: s.detail ?? `Not connected to ${remote}. Click for relay actions.`, command: MENU };
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

export interface WebhookUrlChoice {
  url: string;
  description: string;
  /** Set when picking it means creating this channel first (a channel of the webhook's own on the remote relay). */
  newChannel?: string;
}

/**
 * The payload URLs Add Webhook offers, best first. With a remote relay in use: a new channel of
 * the webhook's own (`newChannel`, under the relay's reported ingress base: its rows and counts are
 * then that webhook's), then its channels with the URLs the relay reports; never the local relay's
 * http://127.0.0.1 address, which the remote relay is not. Without one: a channel of its own on the
 * local relay, then its `default` channel.
 */
export function webhookUrlChoices(o: {
  remote?: { label: string; channels: { name: string; ingressUrl: string }[]; ingressBase?: string };
  localUrl: string;
  serviceBaseUrl: string;
  newChannel?: string;
}): WebhookUrlChoice[] {
  const out: WebhookUrlChoice[] = [];
  if (o.remote) {
    if (o.newChannel && o.remote.ingressBase) {
      out.push({ url: `${o.remote.ingressBase.replace(/\/+$/, '')}/hooks/${o.newChannel}`, description: `a new channel of its own on ${o.remote.label} (recommended)`, newChannel: o.newChannel });
    }
    for (const c of o.remote.channels) out.push({ url: c.ingressUrl, description: `channel ${c.name} on ${o.remote.label}` });
    return out;
  }
  const reach = serviceIsLocal(o.serviceBaseUrl) ? '' : ' (the service must reach this machine)';
  if (o.newChannel) out.push({ url: o.localUrl.replace(/\/hooks\/[^/]*$/, `/hooks/${o.newChannel}`), description: `a channel of its own on the local relay (recommended)${reach}` });
  out.push({ url: o.localUrl, description: o.newChannel ? `local relay, channel default (shared)${reach}` : `local relay${reach}` });
  return out;
}

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
  /** The local app (http://localhost:3000/webhook). */
  to: string;
}

/** A fresh channel name for a repository: `<repo>-<6 hex>`, within the relay's channel rule (src/core/relay/channelName.ts). */
export function channelNameFor(repo: string, randomHex: string): string {
  const base = repo.split('/').pop()!.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/\.{2,}/g, '.').replace(/^[^A-Za-z0-9]+/, '').slice(0, 50) || 'hooks';
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

const CERT_CODES = /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_HAS_EXPIRED|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * Why "Connect to Relay…" failed, in words a person can act on (status from the REST answer, code
 * from the socket error). `tls`: whether the address was https:// (an http:// one to a TLS port
 * gets its connection closed unanswered: say "use https://", as the CLI does).
 */
export function describeConnectError(label: string, err: { status?: number; code?: string; cause?: { code?: string }; message?: string }, tls?: boolean): string {
  const code = err.code ?? err.cause?.code;
  if (tls === false && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || /other side closed/i.test(err.message ?? ''))) {
    return `${label} closed the connection without answering: it speaks TLS on this port, so use https://${label}`;
  }
  if (err.status === 401) return `${label} rejected the token (401). Check it, or ask the relay's admin for a channel token.`;
  if (err.status === 403) return `${label} refused this token (403): it may be a channel token for another channel.`;
  if (err.status === 404) return `${label} answered 404: is this the relay's address (no path after the host)?`;
  if (code && CERT_CODES.test(code)) {
    return `${label}'s TLS certificate is not trusted (${code}). If your team uses its own CA, start the editor with NODE_EXTRA_CA_CERTS pointing at it.`;
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT' || code === 'ECONNRESET') return `Cannot reach ${label} (${code}).`;
  if (code === 'EPROTO' || /wrong version number|packet length too long/i.test(err.message ?? '')) return `${label} does not speak TLS on this port: use http:// only for a relay on this machine.`;
  return `Cannot connect to ${label}: ${err.message ?? 'unknown error'}${code ? ` (${code})` : ''}`;
}
