// What the page's HTTP-level tests share: a JSON call, signing in as the page does, and reading
// the live feed (Server-Sent Events) until enough events arrived.
import { strict as assert } from 'node:assert';
import { Agent, request } from 'undici';
import type { RelayServer } from '../../../relay/server';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, unknown>;
}

export async function call(url: string, method: string, headers: Record<string, string> = {}, body?: unknown, dispatcher?: Agent): Promise<Answer> {
  const res = await request(url, { method: method as 'GET', headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export interface SignedIn {
  /** The session cookie as the browser sends it back. */
  cookie: string;
  csrf: string;
  /** The tab's key of the session (sent in x-page-key). */
  key: string;
  setCookie: string;
  /** What every request of the page carries: the cookie and its tab's key (relay/server/page/sessions.ts). */
  headers: Record<string, string>;
}

/** Signs in as the page does; returns the cookie, the CSRF token and the headers the page sends with each request. */
export async function signIn(relay: RelayServer, token: string, dispatcher?: Agent): Promise<SignedIn> {
  const r = await call(`${relay.url}/page/session`, 'POST', { origin: relay.url, 'content-type': 'application/json' }, { token }, dispatcher);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const setCookie = String(r.headers['set-cookie']);
  const cookie = setCookie.split(';')[0]!;
  return { cookie, csrf: String(r.json.csrf), key: String(r.json.key), setCookie, headers: { cookie, 'x-page-key': String(r.json.key) } };
}

export interface FeedEvent {
  event: string;
  id?: string;
  seq: number;
  data: string;
}

/** Reads a Server-Sent Events stream until `want` events arrived (`onOpen` runs once it is open); returns them. */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  want: number,
  onOpen?: () => Promise<unknown>,
  dispatcher?: Agent,
): Promise<FeedEvent[]> {
  const res = await request(url, { headers, dispatcher });
  assert.equal(res.statusCode, 200);
  const got: FeedEvent[] = [];
  let buf = '';
  void onOpen?.();
  for await (const chunk of res.body) {
    buf += chunk.toString();
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      );
      if (fields.event) got.push({ event: fields.event, id: fields.id, seq: (JSON.parse(fields.data!) as { seq: number }).seq, data: fields.data! });
    }
    if (got.length >= want) break;
  }
  res.body.destroy();
  return got;
}
