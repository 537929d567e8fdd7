// Each surface a token can read the relay through, as a small reader: what it got (read) and what
// the model says it must get (expect), both as one short line naming deliveries by their model id
// (d1, d2, …), so a difference reads as "expected d2 d4, got d1 d2 d4".
import { request } from 'undici';
import { subscribe } from '../../../relay/client';
import { NAMES, type Delivery, type Model, type Token } from './model';
import { within } from '../relay/support/helpers';

/** A running relay as the readers see it. */
export interface RelayHandle {
  url: string;
}

/** What the readers share: the relay, the model, each model token's real token, and every answer's text (for the leak check). */
export interface World {
  relay: RelayHandle;
  model: Model;
  secretOf: (t: Token) => string;
  seen: string[];
  /** The test CA, when the relay serves TLS (its WebSocket clients and the page feed's own agents trust it). */
  ca?: Buffer;
}

export interface Reader {
  surface: string;
  /** Reads through a child process (the CLI): slower, so run only at the end of a sequence. */
  cli?: boolean;
  read(w: World, t: Token): Promise<string>;
  expect(m: Model, t: Token): string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

export async function http(w: World, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const res = await request(w.relay.url + path, {
    method: method as 'GET',
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  w.seen.push(text);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (metrics)
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

const bearer = (w: World, t: Token) => ({ authorization: `Bearer ${w.secretOf(t)}` });

/** `d1 d3`, or `(none)`. */
export function ids(m: Model, seqs: readonly number[]): string {
  return seqs.length
    ? [...seqs]
        .sort((a, b) => a - b)
        .map((s) => m.idOfSeq(s))
        .join(' ')
    : '(none)';
}

const seqsOf = (ds: readonly Delivery[]) => ds.map((d) => d.seq);
const idOr0 = (m: Model, seq: number) => (seq > 0 ? m.idOfSeq(seq) : '0');
/** `lastSeq d3`. */
const lastSeqText = (m: Model, seq: number) => `lastSeq ${idOr0(m, seq)}`;

/** The expectation of a reader whose answer is 401 for a dead token and `f(visible)` otherwise. */
const ifLive = (m: Model, t: Token, f: (visible: Delivery[]) => string) => {
  const v = m.visible(t);
  return v === undefined ? '401' : f(v);
};

/** Runs `f` for every delivery the model holds (or once, on seq 1, for a dead token): `d1:200 d2:404`. */
async function perSeq(w: World, t: Token, f: (seq: number) => Promise<string>): Promise<string> {
  if (!t.live) return f(w.model.deliveries[0]?.seq ?? 1);
  const out: string[] = [];
  for (const d of w.model.deliveries) out.push(`${d.id}:${await f(d.seq)}`);
  return out.join(' ') || '(none)';
}

function perDeliveryExpect(m: Model, t: Token, f: (d: Delivery, visible: boolean) => string): string {
  const v = m.visible(t);
  if (v === undefined) return '401';
  return m.deliveries.map((d) => `${d.id}:${f(d, v.includes(d))}`).join(' ') || '(none)';
}

const list = (json: Record<string, unknown>) => (json.deliveries as { seq: number }[]).map((d) => d.seq);

export const apiList: Reader = {
  surface: 'GET /api/deliveries',
  async read(w, t) {
    const r = await http(w, 'GET', '/api/deliveries?limit=10000', bearer(w, t));
    return r.status === 200 ? `${ids(w.model, list(r.json))}; ${lastSeqText(w.model, r.json.lastSeq as number)}` : String(r.status);
  },
  expect: (m, t) => ifLive(m, t, (v) => `${ids(m, seqsOf(v))}; ${lastSeqText(m, m.lastSeq(t))}`),
};

export const apiListByChannel: Reader = {
  surface: 'GET /api/deliveries?channel=<name>',
  async read(w, t) {
    if (!t.live) return String((await http(w, 'GET', '/api/deliveries?channel=alice', bearer(w, t))).status);
    const out: string[] = [];
    for (const n of NAMES) {
      const r = await http(w, 'GET', `/api/deliveries?limit=10000&channel=${n}`, bearer(w, t));
      out.push(`${n}: ${r.status === 200 ? ids(w.model, list(r.json)) : r.status}`);
    }
    return out.join(', ');
  },
  // The admin asks about a name's current identity; a channel token may ask only about its own.
  expect: (m, t) =>
    ifLive(m, t, (v) =>
      NAMES.map((n) => {
        if (t.key !== undefined) return `${n}: ${n === t.name ? ids(m, seqsOf(v)) : '403'}`;
        return `${n}: ${ids(m, seqsOf(m.held().filter((d) => d.key === m.keyOf(n))))}`;
      }).join(', '),
    ),
};

export const apiGet: Reader = {
  surface: 'GET /api/deliveries/<seq> (a rejected one: whether its explanation says its channel is gone)',
  read: (w, t) =>
    perSeq(w, t, async (seq) => {
      const r = await http(w, 'GET', `/api/deliveries/${seq}`, bearer(w, t));
      const explained = r.json.explanation === undefined ? '' : /no longer exists/.test(String(r.json.explanation)) ? ' gone' : ' checked';
      return `${r.status}${explained}`;
    }),
  expect: (m, t) => perDeliveryExpect(m, t, (d, visible) => (visible ? `200${explanation(m, d)}` : '404')),
};

/** The doctor checks a rejected delivery with its own channel's secrets while that channel (identity) is served, else says it is gone. */
export function explanation(m: Model, d: Delivery): string {
  if (d.verification !== 'rejected') return '';
  return m.keyOf(d.name) === d.key && m.served(d.name) ? ' checked' : ' gone';
}

export const apiReplay: Reader = {
  surface: 'POST /api/deliveries/<seq>/replay',
  read: (w, t) => perSeq(w, t, async (seq) => String((await http(w, 'POST', `/api/deliveries/${seq}/replay`, bearer(w, t), {})).status)),
  // No channel here forwards anywhere itself: a replay the caller may make is 200 with no attempts.
  expect: (m, t) => perDeliveryExpect(m, t, (_d, visible) => (visible ? '200' : '404')),
};

export const apiStatus: Reader = {
  surface: 'GET /api/status',
  async read(w, t) {
    const r = await http(w, 'GET', '/api/status', bearer(w, t));
    if (r.status !== 200) return String(r.status);
    const rows = (r.json.channels as { name: string; received: number }[]).map((c) => `${c.name}:${c.received}`).sort();
    return `${lastSeqText(w.model, r.json.lastSeq as number)}; ${rows.join(' ') || '(no channels)'}`;
  },
  // The admin's rows are per name (every identity of a served name summed); a channel token's is its own.
  expect: (m, t) =>
    ifLive(m, t, (v) => {
      if (t.key !== undefined) return `${lastSeqText(m, m.lastSeq(t))}; ${t.name}:${v.length}`;
      // Only names the relay serves: with --public, a --config channel removed from the file is no channel (404), its history kept.
      const rows = NAMES.filter((n) => m.served(n))
        .map((n) => [n, m.held().filter((d) => d.name === n).length] as const)
        .filter(([, c]) => c > 0)
        .map(([n, c]) => `${n}:${c}`);
      return `${lastSeqText(m, m.lastSeq(t))}; ${rows.join(' ') || '(no channels)'}`;
    }),
};

export const apiChannels: Reader = {
  surface: 'GET /api/channels',
  async read(w, t) {
    const r = await http(w, 'GET', '/api/channels', bearer(w, t));
    return r.status === 200 ? (r.json.channels as { name: string }[]).map((c) => c.name).join(' ') || '(none)' : String(r.status);
  },
  expect: (m, t) => (!t.live ? '401' : t.key !== undefined ? '403' : m.listed().join(' ') || '(none)'),
};

export const apiChannel: Reader = {
  surface: 'GET /api/channels/<name>',
  async read(w, t) {
    if (!t.live) return String((await http(w, 'GET', '/api/channels/alice', bearer(w, t))).status);
    const out: string[] = [];
    for (const n of NAMES) {
      const r = await http(w, 'GET', `/api/channels/${n}`, bearer(w, t));
      out.push(`${n}:${r.status === 200 ? `200 received ${r.json.received as number}` : r.status}`);
    }
    return out.join(', ');
  },
  // Counts of the name's current identity; a channel token gets its own channel only.
  expect: (m, t) =>
    ifLive(m, t, () =>
      NAMES.map((n) => {
        const shown = t.key === undefined ? m.listed().includes(n) : n === t.name;
        return `${n}:${shown ? `200 received ${m.countOf(n)}` : '404'}`;
      }).join(', '),
    ),
};

/**
 * Subscribes from seq 0 with relay/client (optionally `?channel=`) and collects until the relay says
 * it caught up: `d1 d3; lastSeq d3`, or the refusal's status. A sequence holds far fewer deliveries
 * than the concurrency, so each is handed to onDelivery as its message arrives, before caught-up.
 */
async function stream(w: World, t: Token, channel?: string): Promise<string> {
  const got: number[] = [];
  let hello = -1;
  let done!: (r: string) => void;
  const finished = new Promise<string>((r) => (done = r));
  const sub = subscribe({
    url: w.relay.url.replace(/^http/, 'ws'),
    token: w.secretOf(t),
    since: 0,
    ...(w.ca ? { ca: [w.ca] } : {}),
    ...(channel ? { channel } : {}),
    concurrency: 64,
    onDelivery: (d) => void got.push(d.seq),
    onState: (s) => {
      if (s.state === 'open') hello = s.lastSeq;
      else if (s.state === 'reconnecting' && s.refused !== undefined) done(String(s.refused));
      else if (s.state === 'caught-up') done(`${ids(w.model, got)}; ${lastSeqText(w.model, hello)}`);
    },
  });
  try {
    return await within(finished, 10_000, () => 'timeout').catch(() => `no caught-up within 10 s (got ${ids(w.model, got)})`);
  } finally {
    sub.close();
    await sub.closed;
  }
}

export const webSocket: Reader = {
  surface: 'WebSocket /ws?since=0',
  read: (w, t) => stream(w, t),
  expect: (m, t) => ifLive(m, t, (v) => `${ids(m, seqsOf(v))}; ${lastSeqText(m, m.lastSeq(t))}`),
};

export const webSocketByChannel: Reader = {
  surface: 'WebSocket /ws?since=0&channel=<name>',
  async read(w, t) {
    if (!t.live) return stream(w, t, 'alice');
    const out: string[] = [];
    for (const n of NAMES) out.push(`${n}: ${await stream(w, t, n)}`);
    return out.join(', ');
  },
  // The admin's stream of a name is its current identity's (hello: the relay-wide lastSeq); a channel token may ask only for its own.
  expect: (m, t) =>
    ifLive(m, t, (v) =>
      NAMES.map((n) => {
        if (t.key !== undefined) return `${n}: ${n === t.name ? `${ids(m, seqsOf(v))}; ${lastSeqText(m, m.lastSeq(t))}` : '403'}`;
        return `${n}: ${ids(m, seqsOf(m.held().filter((d) => d.key === m.keyOf(n))))}; ${lastSeqText(m, m.lastSeq(m.admin))}`;
      }).join(', '),
    ),
};

export const retryPending: Reader = {
  surface: 'POST /api/forward/retry { channel }',
  async read(w, t) {
    if (!t.live) return String((await http(w, 'POST', '/api/forward/retry', bearer(w, t), {})).status);
    const out: string[] = [];
    for (const n of NAMES) out.push(`${n}:${(await http(w, 'POST', '/api/forward/retry', bearer(w, t), { channel: n })).status}`);
    return out.join(' ');
  },
  expect: (_m, t) => (!t.live ? '401' : NAMES.map((n) => `${n}:${t.key === undefined || n === t.name ? 200 : 403}`).join(' ')),
};

export const metrics: Reader = {
  surface: 'GET /metrics',
  async read(w, t) {
    return String((await http(w, 'GET', '/metrics', bearer(w, t))).status);
  },
  expect: (_m, t) => (t.live && t.key === undefined ? '200' : '401'),
};
