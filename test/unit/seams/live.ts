// The live surfaces: the page's feed (/page/events) and a WebSocket subscription (relay/client), each
// a Stream that collects the seqs it is sent. Two kinds:
//   - watchers, opened by a `watch` step in the middle of a sequence ("from now") and kept open
//     across the later steps: they must get what their token sees from then on, and a deleted
//     channel's watcher must be ended (its feed closed, its subscription refused);
//   - at the end of each sequence, every live token's streams from seq 0.
// Then two rounds of deliveries go to every channel that serves, and each live stream must get
// exactly what its token sees: never another channel's. Two rounds, so that every stream waits for
// a delivery that came after each other channel's first one: a leak cannot hide behind the end.
import { Agent, request, type Dispatcher } from 'undici';
import { subscribe, type Subscription } from '../../../relay/client';
import { within } from '../relay/support/helpers';
import { NAMES, tokenText, type Difference, type Model, type Name, type Sig, type Token } from './model';
import { http, ids, type World } from './readers';

/** What the live phase needs of the driver's run (./driver.ts Run). */
export interface Driving {
  model: Model;
  transcript: string[];
  /** Watchers still open (a restart closes them). */
  watchers: Stream[];
  deliver(name: Name, sig: Sig, line: (got: string) => void): Promise<void>;
  note(d: Difference): void;
  fail(): void;
}

export interface Stream {
  surface: string;
  token: Token;
  /** It gets deliveries after this seq. */
  from: number;
  got: number[];
  /** Opened by a watch step (else: from seq 0 at the end of the sequence). */
  watcher: boolean;
  /** A page feed's session (cookie and the tab's key): a watcher's is used once more at the end. */
  session?: Record<string, string>;
  /** The relay ended it (a feed closed, a subscription closed or refused). */
  ended: boolean;
  close(): Promise<void>;
}

/** Opens a watcher's two streams from now. */
export async function watch(w: World, t: Token, lastSeq: number): Promise<Stream[]> {
  return [await pageFeed(w, t, lastSeq, false), await webSocketFeed(w, t, lastSeq, false)];
}

/** Reads the live surfaces; returns the number of streams read. */
export async function readLive(run: Driving, w: World): Promise<number> {
  const streams: Stream[] = [...run.watchers];
  try {
    for (const t of run.model.tokens.filter((x) => x.live)) {
      streams.push(await pageFeed(w, t, 0, true), await webSocketFeed(w, t, 0, true));
    }
    for (let round = 1; round <= 2; round++) {
      for (const n of NAMES.filter((x) => run.model.source(x) !== 'deleted')) {
        await run.deliver(n, 'current', (got) => run.transcript.push(`     live phase, round ${round}: POST /hooks/${n} (current secret) → ${got}`));
      }
    }
    for (const s of streams) await compare(run, s);
    for (const s of run.watchers) if (s.session) await heldSession(run, w, s);
  } finally {
    for (const s of streams) await s.close();
  }
  run.fail();
  return streams.length;
}

/** Waits until `s` got the newest delivery its token sees (a live token) or was ended (a deleted one), then compares. */
async function compare(run: Driving, s: Stream): Promise<void> {
  // A watcher got each delivery as it came (a later prune takes nothing back); a stream from 0 only what is held.
  const want = run.model.deliveries
    .filter((d) => d.seq > s.from && (s.token.key === undefined || d.key === s.token.key) && (s.watcher || !d.pruned))
    .map((d) => d.seq)
    .sort((a, b) => a - b);
  const last = want.length ? Math.max(...want) : 0;
  // Nothing to wait for when no channel took a delivery (--public with no channel that has a secret).
  const done = s.token.live ? () => want.length === 0 || s.got.includes(last) : () => s.ended;
  const late = s.token.live ? ' (the last one did not come within 10 s)' : ' (still open 10 s after its channel was deleted)';
  const arrived = await within(waitUntil(done), 10_000, () => 'late').then(
    () => '',
    () => late,
  );
  const expected = ids(run.model, want) + (s.token.live ? '' : ', then ended');
  const got = ids(run.model, s.got) + (s.token.live ? '' : s.ended ? ', then ended' : '') + arrived;
  run.note({ surface: s.surface, token: tokenText(s.token), expected, got });
}

/** A page session signed in at a watch step still lists what its token sees, or is signed out (401) once its channel was deleted. */
async function heldSession(run: Driving, w: World, s: Stream): Promise<void> {
  const r = await http(w, 'GET', '/api/deliveries?limit=10000', s.session);
  const v = run.model.visible(s.token);
  const got =
    r.status === 200
      ? ids(
          run.model,
          (r.json.deliveries as { seq: number }[]).map((d) => d.seq),
        )
      : String(r.status);
  run.note({
    surface: 'page: a session signed in at the watch step (/api/deliveries)',
    token: tokenText(s.token),
    expected: v
      ? ids(
          run.model,
          v.map((d) => d.seq),
        )
      : '401',
    got,
  });
}

function waitUntil(ok: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ok() ? resolve() : setImmediate(check));
    check();
  });
}

/** Signs in as the page does and reads /page/events ('delivery' events' seqs): from seq 0, or from now. */
async function pageFeed(w: World, t: Token, from: number, fromZero: boolean): Promise<Stream> {
  const s = await http(w, 'POST', '/page/session', { origin: w.relay.url }, { token: w.secretOf(t) });
  const headers = { cookie: String(s.headers['set-cookie']).split(';')[0]!, 'x-page-key': String(s.json.key) };
  // An agent of its own, destroyed at the end: the stream's socket is closed then, not left to the relay's stop.
  const agent = new Agent(w.ca ? { connect: { ca: w.ca } } : {});
  const res: Dispatcher.ResponseData = await request(`${w.relay.url}/page/events${fromZero ? '?since=0' : ''}`, { headers, dispatcher: agent });
  const got: number[] = [];
  const stream: Stream = {
    surface: `page: live feed /page/events${fromZero ? '?since=0' : ', opened by a watch step'} (status ${res.statusCode})`,
    token: t,
    from,
    watcher: !fromZero,
    session: headers,
    got,
    ended: false,
    close: async () => {
      res.body.destroy();
      await reading;
      await agent.destroy();
    },
  };
  const reading = (async () => {
    let buf = '';
    try {
      for await (const chunk of res.body) {
        buf += (chunk as Buffer).toString();
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (/^event: delivery$/m.test(block) && data) got.push((JSON.parse(data) as { seq: number }).seq);
        }
      }
      stream.ended = true;
    } catch {
      // destroyed by close()
    }
  })();
  return stream;
}

/** A relay/client subscription, from seq 0 or from now, open before the deliveries it must get. */
async function webSocketFeed(w: World, t: Token, from: number, fromZero: boolean): Promise<Stream> {
  const got: number[] = [];
  let ended = false;
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const sub: Subscription = subscribe({
    url: w.relay.url.replace(/^http/, 'ws'),
    token: w.secretOf(t),
    ...(w.ca ? { ca: [w.ca] } : {}),
    ...(fromZero ? { since: 0 } : {}),
    concurrency: 64,
    onDelivery: (d) => void got.push(d.seq),
    onState: (s) => {
      if (s.state === 'reconnecting') ended = true;
      if (s.state === 'open' || s.state === 'reconnecting') opened();
    },
  });
  await open;
  return {
    surface: `WebSocket /ws${fromZero ? '?since=0' : ', opened by a watch step'}, open while deliveries arrive`,
    token: t,
    from,
    watcher: !fromZero,
    got,
    get ended() {
      return ended;
    },
    close: async () => {
      sub.close();
      await sub.closed;
    },
  };
}
