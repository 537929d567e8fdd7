// The live phase of a sequence: every live token opens the page's feed (/page/events?since=0)
// and a WebSocket subscription (since=0), then two rounds of deliveries go to every channel that
// serves. Each stream must get exactly what its token sees: the replayed past, then the new
// deliveries, never another channel's. Two rounds, so that every stream waits for a delivery that
// came after each other channel's first one: a leak cannot hide behind the end of the read.
import { Agent, request, type Dispatcher } from 'undici';
import { subscribe, type Subscription } from '../../../relay/client';
import { within } from '../relay/helpers';
import { NAMES, tokenText, type Difference, type Model, type Name, type Sig, type Token } from './model';
import { http, ids, type World } from './readers';

/** What the live phase needs of the driver's run (./driver.ts Run). */
export interface Driving {
  model: Model;
  transcript: string[];
  deliver(name: Name, sig: Sig, line: (got: string) => void): Promise<void>;
  note(d: Difference): void;
  fail(): void;
}

interface Stream {
  surface: string;
  token: Token;
  got: number[];
  close(): Promise<void>;
}

/** Reads the live surfaces; returns the number of streams read. */
export async function readLive(run: Driving, w: World): Promise<number> {
  const streams: Stream[] = [];
  try {
    for (const t of run.model.tokens.filter((x) => x.live)) {
      streams.push(await pageFeed(w, t), await webSocketFeed(w, t));
    }
    for (let round = 1; round <= 2; round++) {
      for (const n of NAMES.filter((x) => run.model.source(x) !== 'deleted')) {
        await run.deliver(n, 'current', (got) => run.transcript.push(`     live phase, round ${round}: POST /hooks/${n} (current secret) → ${got}`));
      }
    }
    for (const s of streams) {
      const want = run.model.visible(s.token)!.map((d) => d.seq);
      const last = want.length ? Math.max(...want) : 0;
      const arrived = await within(
        waitUntil(() => s.got.includes(last)),
        10_000,
        () => 'late',
      ).then(
        () => '',
        () => ' (the last one did not come within 10 s)',
      );
      run.note({ surface: s.surface, token: tokenText(s.token), expected: ids(run.model, want), got: ids(run.model, s.got) + arrived });
    }
  } finally {
    for (const s of streams) await s.close();
  }
  run.fail();
  return streams.length;
}

function waitUntil(ok: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ok() ? resolve() : setImmediate(check));
    check();
  });
}

/** Signs in as the page does and reads /page/events from seq 0 ('delivery' events' seqs). */
async function pageFeed(w: World, t: Token): Promise<Stream> {
  const s = await http(w, 'POST', '/page/session', { origin: w.relay.url }, { token: w.secretOf(t) });
  const headers = { cookie: String(s.headers['set-cookie']).split(';')[0]!, 'x-page-key': String(s.json.key) };
  // An agent of its own, destroyed at the end: the stream's socket is closed then, not left to the relay's stop.
  const agent = new Agent();
  const res: Dispatcher.ResponseData = await request(`${w.relay.url}/page/events?since=0`, { headers, dispatcher: agent });
  const got: number[] = [];
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
    } catch {
      // destroyed by close()
    }
  })();
  return {
    surface: `page: live feed /page/events?since=0 (status ${res.statusCode})`,
    token: t,
    got,
    close: async () => {
      res.body.destroy();
      await reading;
      await agent.destroy();
    },
  };
}

/** A relay/client subscription from seq 0, open before the live phase posts. */
async function webSocketFeed(w: World, t: Token): Promise<Stream> {
  const got: number[] = [];
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const sub: Subscription = subscribe({
    url: w.relay.url.replace(/^http/, 'ws'),
    token: w.secretOf(t),
    since: 0,
    concurrency: 64,
    onDelivery: (d) => void got.push(d.seq),
    onState: (s) => (s.state === 'open' || s.state === 'reconnecting' ? opened() : undefined),
  });
  await open;
  return {
    surface: 'WebSocket /ws?since=0, open while deliveries arrive',
    token: t,
    got,
    close: async () => {
      sub.close();
      await sub.closed;
    },
  };
}
