// The page's calls: its own session endpoints and the relay's /api, with the session cookie
// (sent by the browser, never seen by this code), the tab's key of the session on every request
// and the CSRF token on every state change. The key is kept in this tab's sessionStorage, which
// belongs to this relay's origin (scheme, host and port): the cookie goes to every port of the
// host, the key does not, and the relay takes no cookie without it (relay/server/page/sessions.ts).
import { filterParams, type DeliveryFilter } from '../../src/core/relay/deliveryFilter';
import { restPath } from '../../src/core/relay/restPaths';
import type { DeliveryList, RelayDelivery, RelayStatus, ReplayResponse, SubscriberReplayResponse } from '../../src/core/relay/protocol';

export interface Who {
  kind: 'admin' | 'channel';
  channel?: string;
  csrf: string;
  /** Only in the sign-in's answer: the tab's key of the session. */
  key?: string;
  expiresAt: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrf = '';
const KEY_ITEM = 'sh_page_key';

/** The headers every request of this tab carries: its key of the session. */
export function sessionHeaders(): Record<string, string> {
  const key = sessionStorage.getItem(KEY_ITEM);
  return key ? { 'x-page-key': key } : {};
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...sessionHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = { error: text };
  }
  if (!res.ok) throw new ApiError(res.status, (json as { error?: string }).error ?? `HTTP ${res.status}`);
  return json as T;
}

function remember(w: Who): Who {
  csrf = w.csrf;
  if (w.key) sessionStorage.setItem(KEY_ITEM, w.key);
  return w;
}

function forget(): void {
  sessionStorage.removeItem(KEY_ITEM);
}

export const api = {
  whoAmI: () => call<Who>('GET', restPath('pageSession')).then(remember),
  signIn: (token: string) => call<Who>('POST', restPath('pageSession'), { token }).then(remember),
  signOut: () => call<unknown>('DELETE', restPath('pageSession')).finally(forget),
  status: () => call<RelayStatus>('GET', restPath('status')),
  /** Newest first, filtered by the relay over the whole channel (src/core/relay/deliveryFilter.ts). */
  list: (q: { channel?: string; before?: number; limit?: number; filter?: DeliveryFilter }) => {
    const p = filterParams(q.filter ?? {}, new URLSearchParams());
    if (q.channel) p.set('channel', q.channel);
    if (q.before) p.set('before', String(q.before));
    p.set('limit', String(q.limit ?? 50));
    return call<DeliveryList>('GET', `${restPath('deliveries')}?${p}`);
  },
  detail: (seq: number) => call<RelayDelivery>('GET', restPath('delivery', { seq })),
  explain: (seq: number) => call<{ ok: boolean; findings: string[] }>('GET', restPath('pageExplain', { seq })),
  replay: (seq: number, to?: string) => call<ReplayResponse>('POST', restPath('replay', { seq }), to ? { to } : {}),
  /** Sends it again to the subscribers connected to its channel (as `service-hooks replay` does for a delivery only subscribers took). */
  replayToSubscribers: (seq: number) => call<SubscriberReplayResponse>('POST', restPath('replay', { seq }), { to: 'subscribers' }),
};
