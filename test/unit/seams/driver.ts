// Runs a sequence of steps (./model.ts) on a real relay and on the model side by side: each step's
// answer is checked as it happens, then every reader (./readers.ts, ./pageReaders.ts, the CLI's in
// ./cliReaders.ts) reads with every token (the admin's, each channel's, each deleted channel's),
// then the live phase (./live.ts) reads the page's feed and the WebSocket while deliveries arrive.
// A difference throws a SeamFailure whose message is the whole story: the steps with what the relay
// answered, then each surface and token that disagreed, expected against got.
import { request } from 'undici';
import { sign } from '../../../src/core/signing';
import { Model, stepText, tokenText, type Difference, type Name, type Sig, type Step } from './model';
import {
  apiChannel,
  apiChannels,
  apiGet,
  apiList,
  apiListByChannel,
  apiReplay,
  apiStatus,
  metrics,
  retryPending,
  webSocket,
  webSocketByChannel,
  type Reader,
  type World,
} from './readers';
import { pageDoctor, pageList, pageReplay, pageSignIn } from './pageReaders';
import { refusals } from './refusals';
import { ADMIN_TOKEN, type RelayUnderTest, type StoreUnderTest } from './relayUnderTest';
import { readLive, watch, type Stream } from './live';
import { testCerts, trustTestCa, type Mode } from './modes';

export const READERS: readonly Reader[] = [
  apiList,
  apiListByChannel,
  apiGet,
  apiReplay,
  apiStatus,
  apiChannels,
  apiChannel,
  retryPending,
  webSocket,
  webSocketByChannel,
  metrics,
  pageSignIn,
  pageList,
  pageDoctor,
  pageReplay,
  refusals,
];

export class SeamFailure extends Error {
  override name = 'SeamFailure';
}

export interface RunOptions {
  store: StoreUnderTest;
  /** Readers through child processes, run once at the end (./cliReaders.ts). */
  cliReaders?: readonly Reader[];
  /** --public, TLS, --allow-cidr (./modes.ts); default plain HTTP, none of them. */
  mode?: Mode;
}

/** What a run did: for the test's summary line. */
export interface RunStats {
  steps: number;
  reads: number;
}

/** One sequence on a fresh relay; throws SeamFailure on the first step or read that disagrees. */
export async function runSequence(steps: readonly Step[], o: RunOptions): Promise<RunStats> {
  const run = new Run(o.store.relay(o.mode), new Model({ strict: o.mode?.public ?? false }), o.mode?.tls ? testCerts().ca : undefined);
  const untrust = o.mode?.tls ? trustTestCa() : undefined;
  try {
    await run.relay.start(run.model.config);
    for (const s of steps) await run.step(s);
    const world = run.world;
    const reads = (await run.readAll(world, READERS)) + (await readLive(run, world)) + (o.cliReaders ? await run.readAll(world, o.cliReaders) : 0);
    run.checkLeaks(world);
    return { steps: steps.length, reads };
  } finally {
    await run.closeWatchers();
    await run.relay.close();
    untrust?.();
  }
}

/** One sequence's relay, model, real tokens and transcript. */
export class Run {
  readonly transcript: string[] = [];
  private readonly tokens = new Map<string, string>([['admin', ADMIN_TOKEN]]);
  private readonly differences: Difference[] = [];
  watchers: Stream[] = [];
  readonly world: World;

  constructor(
    readonly relay: RelayUnderTest,
    readonly model: Model,
    ca?: Buffer,
  ) {
    this.world = { relay, model, secretOf: (t) => this.tokens.get(t.id)!, seen: [], ...(ca ? { ca } : {}) };
  }

  /** A restart ends the watchers' streams (the relay's port changes): they are closed unchecked. */
  async closeWatchers(): Promise<string> {
    for (const s of this.watchers) await s.close();
    const n = this.watchers.length;
    this.watchers = [];
    this.model.watching = [];
    return n ? ` (${n / 2} watcher(s) closed unchecked)` : '';
  }

  async step(s: Step): Promise<void> {
    const line = (got: string) => this.transcript.push(`${String(this.transcript.length + 1).padStart(3)}. ${stepText(s)} → ${got}`);
    switch (s.kind) {
      case 'create': {
        const want = this.model.create(s.name);
        const r = await this.api('POST', '/api/channels', { name: s.name, secrets: want.status === 201 ? [want.secret] : ['unused-secret-0123456789'] });
        line(want.status === 201 ? `${r.status} (${want.token.id})` : String(r.status));
        if (want.status === 201 && r.status === 201) this.tokens.set(want.token.id, String(r.json.token));
        return this.same(`answer of step ${this.transcript.length}`, 'the admin token', String(want.status), String(r.status));
      }
      case 'delete': {
        const want = this.model.delete(s.name);
        const r = await this.api('DELETE', `/api/channels/${s.name}`);
        line(String(r.status));
        return this.same(`answer of step ${this.transcript.length}`, 'the admin token', String(want), String(r.status));
      }
      case 'rotate': {
        const want = this.model.rotate(s.name);
        const r = await this.api('PATCH', `/api/channels/${s.name}`, { secrets: [want.status === 200 ? want.secret : 'unused-secret-0123456789'] });
        line(String(r.status));
        return this.same(`answer of step ${this.transcript.length}`, 'the admin token', String(want.status), String(r.status));
      }
      case 'configure': {
        this.model.configure(s.name, s.on);
        const closed = await this.closeWatchers();
        await this.relay.restart(this.model.config);
        return void line(`--config: ${[...this.model.config].sort().join(', ') || '(none)'}${closed}`);
      }
      case 'restart': {
        const closed = await this.closeWatchers();
        await this.relay.restart(this.model.config);
        return void line(`restarted${closed}`);
      }
      case 'prune': {
        this.model.prune(s.keep);
        const r = await this.api('POST', '/api/prune', { keep: s.keep });
        const gone = this.model.deliveries.filter((d) => d.pruned).map((d) => d.id);
        line(`${r.status} (pruned so far: ${gone.join(' ') || 'none'})`);
        return this.same(`answer of step ${this.transcript.length}`, 'the admin token', '200', String(r.status));
      }
      case 'watch': {
        const t = s.who === 'admin' ? this.model.admin : this.model.tokenOf(s.who);
        if (!t) return void line(`no token of ${s.who}: nothing watched`);
        const from = await this.relay.lastSeq();
        this.watchers.push(...(await watch(this.world, t, from)));
        this.model.watching.push(t);
        return void line(`watching with ${tokenText(t)} after seq ${from}`);
      }
      case 'deliver':
        return this.deliver(s.name, s.sig, line);
    }
  }

  /** POST /hooks/<name> signed as `sig` says; checks the answer and records what was stored. */
  async deliver(name: Name, sig: Sig, line: (got: string) => void): Promise<void> {
    const want = this.model.deliver(name, sig);
    const id = `d${this.model.deliveries.length + 1}`;
    const body = JSON.stringify({ seams: id });
    const secret = this.model.signingSecret(name, sig);
    const res = await request(`${this.relay.url}/hooks/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-delivery': id, ...(secret ? { 'x-service-signature': sign(secret, body) } : {}) },
      body,
    });
    const answer = (await res.body.json()) as { seq?: number; verification?: string };
    const seq = res.statusCode === 200 ? answer.seq! : res.statusCode === 401 ? await this.relay.lastSeq() : 0;
    const stored = want.key !== undefined && res.statusCode === want.status ? this.model.stored(name, want.key, want.verification!, seq) : undefined;
    line(stored ? `${res.statusCode} ${stored.id} (seq ${seq}, ${stored.key}, ${stored.verification})` : String(res.statusCode));
    this.same(`answer of step ${this.transcript.length}`, '(none)', String(want.status), String(res.statusCode));
  }

  private async api(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await request(this.relay.url + path, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** Every reader with every token; all differences are reported together. Returns the number of reads. */
  async readAll(world: World, readers: readonly Reader[]): Promise<number> {
    let n = 0;
    for (const r of readers) {
      for (const t of this.model.tokens) {
        this.note({ surface: r.surface, token: tokenText(t), expected: r.expect(this.model, t), got: await r.read(world, t) });
        n++;
      }
    }
    this.fail();
    return n;
  }

  /** Records a difference (reported by the next fail()). */
  note(d: Difference): void {
    if (d.expected !== d.got) this.differences.push(d);
  }

  /** Throws SeamFailure when any difference was noted. */
  fail(): void {
    if (this.differences.length === 0) return;
    const diffs = this.differences.map((d) => `  surface:  ${d.surface}\n  token:    ${d.token}\n  expected: ${d.expected}\n  got:      ${d.got}`);
    throw new SeamFailure(`the relay and the model disagree\nsteps:\n${this.transcript.join('\n')}\n\n${diffs.join('\n\n')}`);
  }

  private same(surface: string, token: string, expected: string, got: string): void {
    this.note({ surface, token, expected, got });
    this.fail();
  }

  /**
   * No channel token or secret in anything a reader got back (the admin token is the readers'
   * own: not checked there), and none, nor the admin token, in what the relay logged.
   */
  checkLeaks(world: World): void {
    const secrets = [...this.model.secrets(), ...[...this.tokens.entries()].filter(([id]) => id !== 'admin').map(([, v]) => v)];
    const find = (where: string, texts: readonly string[], words: readonly string[]) => {
      for (const text of texts) {
        const leaked = words.find((s) => text.includes(s));
        if (leaked) this.note({ surface: where, token: '(any)', expected: 'no token or secret', got: `${leaked} in ${text.slice(0, 300)}` });
      }
    };
    find('every answer a reader got', world.seen, secrets);
    find("the relay's log", this.relay.logged(), [...secrets, ADMIN_TOKEN]);
    this.fail();
  }
}
