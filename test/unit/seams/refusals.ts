// The refusals as a reader (./readers.ts): every REST route of src/core/relay/restPaths.ts (and
// each method of the relay's route tables), /ws (token in the header or as subprotocol), the page's
// sign-in, session and cookie calls (no CSRF token, another Origin, no tab's key, an admin route),
// and /metrics, asked with a token that may not do it, each answer read as its status and its
// message. The expected line is what the relay's documented contract says (the route table atop
// relay/server/api/api.ts, docs/architecture.md "Tokens and scopes", docs/page-and-metrics.md):
// status and a message naming the reason. The model's tokens (admin, a live channel's, a deleted
// channel's) are the driver's; the kinds outside the model, no token at all and a wrong one, are
// asked beside the admin token's read. Left out on purpose:
//   - requests the admin token would carry out (create, delete, prune): they change the sequence's
//     state; their answers are the driver's steps;
//   - 400s for bad bodies and queries: no token kind changes them;
//   - /healthz and /readyz: they take no token, so there is nothing to refuse;
//   - the CLI readers (./cliReaders.ts) and mcp with no token or a wrong one: their 401 is the API's,
//     printed (mcp's walk over stores, TLS and every token: test/unit/cli/mcpChannelTokens.test.ts).
import { WebSocket } from 'ws';
import { TOKEN_SUBPROTOCOL_PREFIX } from '../../../src/core/relay/protocol';
import { NAMES, type Model, type Name, type Token } from './model';
import { http, type World } from './readers';
import type { Reader } from './readers';
import { session } from './pageReaders';

/** The documented messages, by reason. */
const SAYS = {
  token: "missing or wrong relay token (a deleted channel's token is refused too)",
  adminOnly: 'this needs the admin token (the relay token); a channel token is limited to its own channel',
  limited: (c: string) => `this token is limited to channel '${c}'`,
  notFound: 'not found',
  method: 'method DELETE is not allowed here; use GET',
  metrics: 'missing or wrong relay token (the admin token)',
  wsToken: 'Unauthorized',
  wsLimited: (c: string) => `Forbidden Channel (this token is limited to channel '${c}')`,
  signIn: "that is not a token of this relay: a wrong one, or a deleted channel's (use the admin token or a channel token)",
  signedOut: 'signed out',
  csrf: 'missing or wrong CSRF token; reload the page',
  crossSite: 'cross-site request refused (Origin is not this relay)',
  tabKey: 'this tab has no key of the session (sign in again on the relay page)',
} as const;

/** A token outside the model: none sent, or one the relay never gave out. */
type Stranger = 'none' | 'wrong';
const WRONG_TOKEN = 'shc_not-a-token-of-this-relay-0123456789abcdef';

interface Ask {
  what: string;
  method: string;
  path: string;
  body?: unknown;
}

/** Every REST route and method, with a body the route would take (the seq and name are filled in per token). */
function everyRoute(seq: number, name: Name): Ask[] {
  const ask = (method: string, path: string, body?: unknown): Ask => ({ what: `${method} ${path.replace(/\?.*/, '')}`, method, path, body });
  return [
    ask('GET', '/api/status'),
    ask('GET', '/api/deliveries'),
    ask('GET', `/api/deliveries/${seq}`),
    ask('POST', `/api/deliveries/${seq}/replay`, {}),
    ask('POST', '/api/forward/retry', {}),
    ask('POST', '/api/prune', { keep: 1000 }),
    ask('GET', '/api/channels'),
    ask('POST', '/api/channels', { name: 'zed', secrets: ['zed-secret-0123456789abcdef'] }),
    ask('GET', `/api/channels/${name}`),
    ask('PATCH', `/api/channels/${name}`, { addSecrets: ['another-secret-0123456789abcdef'] }),
    ask('DELETE', `/api/channels/${name}`),
    ask('GET', '/api/no-such-route'),
    ask('DELETE', '/api/status'),
  ];
}

/** `status message` of an HTTP answer. */
async function answer(w: World, a: Ask, headers: Record<string, string>): Promise<string> {
  const r = await http(w, a.method, a.path, headers, a.body);
  return `${r.status} ${typeof r.json.error === 'string' ? r.json.error : r.text.slice(0, 80)}`;
}

/** How the /ws upgrade ended: `open`, or `status message`. */
function wsAnswer(w: World, query: string, headers: Record<string, string>, protocols: string[] = []): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${w.relay.url.replace(/^http/, 'ws')}/ws${query}`, protocols, { headers, ...(w.ca ? { ca: w.ca } : {}) });
    ws.on('open', () => (ws.close(), resolve('open')));
    ws.on('unexpected-response', (_req, res) => {
      resolve(`${res.statusCode} ${res.statusMessage}`);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => resolve(`error ${err.message}`));
  });
}

const line = (what: string, got: string) => `${what}: ${got}`;

/**
 * What a live token's page session may not do through the page's cookie: a change without the CSRF
 * token, or from another Origin; the cookie without the tab's key; and, a channel token's, an
 * admin-only route (the API's own refusal).
 */
async function readPage(w: World, t: Token): Promise<string[]> {
  const s = await session(w, t);
  if (typeof s === 'number') return [line('page: sign in', String(s))];
  const { 'x-csrf-token': _csrf, ...noCsrf } = s;
  const retry = { what: '', method: 'POST', path: '/api/forward/retry', body: {} };
  const out = [
    line('page: POST /api/forward/retry without the CSRF token', await answer(w, retry, noCsrf)),
    line('page: POST /api/forward/retry from another Origin', await answer(w, retry, { ...s, origin: 'https://elsewhere.example' })),
    line(
      "page: GET /api/deliveries with the cookie and no tab's key",
      await answer(w, { what: '', method: 'GET', path: '/api/deliveries' }, { cookie: s.cookie! }),
    ),
  ];
  if (t.key !== undefined) out.push(line('page: GET /api/channels', await answer(w, { what: '', method: 'GET', path: '/api/channels' }, s)));
  return out;
}

function expectPage(t: Token): string[] {
  const out = [
    line('page: POST /api/forward/retry without the CSRF token', `403 ${SAYS.csrf}`),
    line('page: POST /api/forward/retry from another Origin', `403 ${SAYS.crossSite}`),
    line("page: GET /api/deliveries with the cookie and no tab's key", `401 ${SAYS.tabKey}`),
  ];
  if (t.key !== undefined) out.push(line('page: GET /api/channels', `403 ${SAYS.adminOnly}`));
  return out;
}

/** What a token the relay does not take gets everywhere (a deleted channel's, a wrong one, none). */
async function readUnknown(w: World, headers: Record<string, string>, token: string | undefined): Promise<string[]> {
  const out: string[] = [];
  for (const a of everyRoute(1, 'alice')) out.push(line(a.what, await answer(w, a, headers)));
  out.push(line('GET /metrics', await answer(w, { what: '', method: 'GET', path: '/metrics' }, headers)));
  out.push(line('/ws', await wsAnswer(w, '?since=0', headers)));
  if (token !== undefined) out.push(line('/ws (the token as subprotocol)', await wsAnswer(w, '?since=0', {}, [TOKEN_SUBPROTOCOL_PREFIX + token])));
  const signIn = await http(w, 'POST', '/page/session', { origin: w.relay.url }, token === undefined ? {} : { token });
  out.push(line('page: sign in', `${signIn.status} ${String(signIn.json.error)}`));
  return out;
}

function expectUnknown(sent: boolean): string[] {
  const out = everyRoute(1, 'alice').map((a) => line(a.what, `401 ${SAYS.token}`));
  out.push(line('GET /metrics', `401 ${SAYS.metrics}`), line('/ws', `401 ${SAYS.wsToken}`));
  if (sent) out.push(line('/ws (the token as subprotocol)', `401 ${SAYS.wsToken}`));
  out.push(line('page: sign in', `401 ${SAYS.signIn}`));
  return out;
}

/** Another name than the channel token's own. */
const otherThan = (name: Name | undefined): Name => NAMES.find((n) => n !== name)!;

/** What a live channel token may not do: the admin's routes, another channel, /metrics; and the routes every token may miss. */
async function readChannel(w: World, t: Token, secret: string): Promise<string[]> {
  const headers = { authorization: `Bearer ${secret}` };
  const own = t.name!;
  const other = otherThan(own);
  const seq = w.model.visible(t)?.[0]?.seq;
  const asks = everyRoute(seq ?? 1, own).filter((a) => /prune|channels$|^PATCH|^DELETE|no-such/.test(a.what));
  asks.push(
    { what: 'GET /api/deliveries?channel=<another>', method: 'GET', path: `/api/deliveries?channel=${other}` },
    { what: 'POST /api/forward/retry { channel: <another> }', method: 'POST', path: '/api/forward/retry', body: { channel: other } },
  );
  if (seq !== undefined)
    asks.push({
      what: 'POST /api/deliveries/<own>/replay { to: URL }',
      method: 'POST',
      path: `/api/deliveries/${seq}/replay`,
      body: { to: 'http://127.0.0.1:9/x' },
    });
  const out: string[] = [];
  for (const a of asks) out.push(line(a.what, await answer(w, a, headers)));
  out.push(line('GET /metrics', await answer(w, { what: '', method: 'GET', path: '/metrics' }, headers)));
  out.push(line('/ws?channel=<another>', await wsAnswer(w, `?since=0&channel=${other}`, headers)));
  return out;
}

function expectChannel(m: Model, t: Token): string[] {
  const visible = (m.visible(t)?.length ?? 0) > 0;
  const out = [
    line('POST /api/prune', `403 ${SAYS.adminOnly}`),
    line('GET /api/channels', `403 ${SAYS.adminOnly}`),
    line('POST /api/channels', `403 ${SAYS.adminOnly}`),
    line(`PATCH /api/channels/${t.name!}`, `403 ${SAYS.adminOnly}`),
    line(`DELETE /api/channels/${t.name!}`, `403 ${SAYS.adminOnly}`),
    line('GET /api/no-such-route', `404 ${SAYS.notFound}`),
    line('DELETE /api/status', `405 ${SAYS.method}`),
    line('GET /api/deliveries?channel=<another>', `403 ${SAYS.limited(t.name!)}`),
    line('POST /api/forward/retry { channel: <another> }', `403 ${SAYS.limited(t.name!)}`),
  ];
  if (visible) out.push(line('POST /api/deliveries/<own>/replay { to: URL }', `403 ${SAYS.adminOnly}`));
  out.push(line('GET /metrics', `401 ${SAYS.metrics}`), line('/ws?channel=<another>', `403 ${SAYS.wsLimited(t.name!)}`));
  return out;
}

/** The admin token's refusals: an unknown route, a method a route has not; and the page's session without a cookie. */
async function readAdmin(w: World, secret: string): Promise<string[]> {
  const headers = { authorization: `Bearer ${secret}` };
  const out: string[] = [];
  for (const a of everyRoute(1, 'alice').filter((x) => /no-such|^DELETE \/api\/status/.test(x.what))) out.push(line(a.what, await answer(w, a, headers)));
  out.push(line('page: GET /page/session without a session', await answer(w, { what: '', method: 'GET', path: '/page/session' }, {})));
  out.push(line('page: GET /page/events without a session', await answer(w, { what: '', method: 'GET', path: '/page/events' }, {})));
  return out;
}

function expectAdmin(): string[] {
  return [
    line('GET /api/no-such-route', `404 ${SAYS.notFound}`),
    line('DELETE /api/status', `405 ${SAYS.method}`),
    line('page: GET /page/session without a session', `401 ${SAYS.signedOut}`),
    line('page: GET /page/events without a session', `401 ${SAYS.signedOut}`),
  ];
}

const strangers: Record<Stranger, { headers: Record<string, string>; token: string | undefined }> = {
  none: { headers: {}, token: undefined },
  wrong: { headers: { authorization: `Bearer ${WRONG_TOKEN}` }, token: WRONG_TOKEN },
};

export const refusals: Reader = {
  surface: 'refusals: every REST route, /ws, the page and /metrics (status and message); with the admin token, also no token and a wrong one',
  async read(w, t) {
    const secret = w.secretOf(t);
    if (!t.live) return (await readUnknown(w, { authorization: `Bearer ${secret}` }, secret)).join('\n    ');
    if (t.key !== undefined) return [...(await readChannel(w, t, secret)), ...(await readPage(w, t))].join('\n    ');
    const out = [...(await readAdmin(w, secret)), ...(await readPage(w, t))];
    for (const [kind, s] of Object.entries(strangers)) out.push(...(await readUnknown(w, s.headers, s.token)).map((l) => `${kind} token, ${l}`));
    return out.join('\n    ');
  },
  expect(m, t) {
    if (!t.live) return expectUnknown(true).join('\n    ');
    if (t.key !== undefined) return [...expectChannel(m, t), ...expectPage(t)].join('\n    ');
    const out = [...expectAdmin(), ...expectPage(t)];
    for (const [kind, s] of Object.entries(strangers)) out.push(...expectUnknown(s.token !== undefined).map((l) => `${kind} token, ${l}`));
    return out.join('\n    ');
  },
};
