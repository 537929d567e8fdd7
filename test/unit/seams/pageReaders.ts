// The relay page's surfaces as readers (./readers.ts): its sign-in, its delivery list (the API
// through the session cookie and the tab's key), the signature doctor and Replay to subscribers.
// The live feed is read by the driver's live phase (./live.ts), which needs deliveries posted.
import type { Model, Token } from './model';
import { explanation, http, ids, type Reader, type World } from './readers';

/** The headers of a page session of `t` (signed in once per world), or the sign-in's status. */
export async function session(w: World & { pages?: Map<string, Record<string, string> | number> }, t: Token): Promise<Record<string, string> | number> {
  w.pages ??= new Map();
  const known = w.pages.get(t.id);
  if (known !== undefined) return known;
  const r = await http(w, 'POST', '/page/session', { origin: w.relay.url }, { token: w.secretOf(t) });
  const cookie = String(r.headers['set-cookie']).split(';')[0]!;
  const got = r.status === 200 ? { cookie, 'x-page-key': String(r.json.key), 'x-csrf-token': String(r.json.csrf), origin: w.relay.url } : r.status;
  w.pages.set(t.id, got);
  return got;
}

export const pageSignIn: Reader = {
  surface: 'page: sign in',
  async read(w, t) {
    const s = await session(w, t);
    return typeof s === 'number' ? String(s) : '200';
  },
  expect: (_m, t) => (t.live ? '200' : '401'),
};

export const pageList: Reader = {
  surface: "page: delivery list (/api/deliveries with the session's cookie and key)",
  async read(w, t) {
    const s = await session(w, t);
    if (typeof s === 'number') return `sign-in ${s}`;
    const r = await http(w, 'GET', '/api/deliveries?limit=10000', s);
    return r.status === 200
      ? ids(
          w.model,
          (r.json.deliveries as { seq: number }[]).map((d) => d.seq),
        )
      : String(r.status);
  },
  expect: (m, t) => {
    const v = m.visible(t);
    return v === undefined
      ? 'sign-in 401'
      : ids(
          m,
          v.map((d) => d.seq),
        );
  },
};

export const pageDoctor: Reader = {
  surface: 'page: signature doctor /page/explain/<seq>',
  async read(w, t) {
    const s = await session(w, t);
    if (typeof s === 'number') return `sign-in ${s}`;
    const out: string[] = [];
    for (const d of w.model.deliveries) {
      const r = await http(w, 'GET', `/page/explain/${d.seq}`, s);
      const gone = /no longer exists/.test(String(r.json.findings)) ? ' gone' : '';
      out.push(`${d.id}:${r.status === 200 ? `ok=${String(r.json.ok)}${gone}` : r.status}`);
    }
    return out.join(' ') || '(none)';
  },
  expect: (m, t) => perDelivery(m, t, (d) => `ok=${String(d.verification === 'verified')}${explanation(m, d) === ' gone' ? ' gone' : ''}`),
};

export const pageReplay: Reader = {
  surface: 'page: Replay to subscribers (POST /api/deliveries/<seq>/replay)',
  async read(w, t) {
    const s = await session(w, t);
    if (typeof s === 'number') return `sign-in ${s}`;
    const out: string[] = [];
    for (const d of w.model.deliveries) out.push(`${d.id}:${(await http(w, 'POST', `/api/deliveries/${d.seq}/replay`, s, { to: 'subscribers' })).status}`);
    return out.join(' ') || '(none)';
  },
  // 202 when a watcher's subscription takes it (./live.ts), else 409 (no subscriber).
  expect: (m, t) => perDelivery(m, t, (d) => (m.subscribed(d) ? '202' : '409')),
};

function perDelivery(m: Model, t: Token, seen: (d: Model['deliveries'][number]) => string): string {
  const v = m.visible(t);
  if (v === undefined) return 'sign-in 401';
  return m.deliveries.map((d) => `${d.id}:${v.includes(d) ? seen(d) : '404'}`).join(' ') || '(none)';
}
