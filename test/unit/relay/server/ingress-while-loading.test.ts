// Issue 40: a relay restarted over a large journal takes deliveries while it builds its index. A
// journal is written offline with the relay's own store (deliveries without targets), its index
// files removed so that the next start reads every segment (a load that takes a while, whatever
// the machine). Then the real relay process: deliveries posted while it loads are answered 200
// (the API 503 meanwhile); a second start is killed (-9) during its load with deliveries
// arriving; a third lists every delivery answered 200 once and forwards each once to the app.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { DeliveryStore } from '../../../../relay/server/store/store';
import { tokenFilePath } from '../../../../src/core/relay/ready';
import { childOutput } from '../../../support/childOutput';
import { freePort } from '../../../support/freePort';
import { cli, deliverSigned, startTarget, tempDir, within, type TargetApp } from '../support/helpers';

const SECRET = 'while-loading-secret-0123456789';
/** Deliveries journaled offline, and their body size: about 240 MB of segments to read at each start. */
const BUILT = 60_000;
const BODY = 4096;

async function buildJournal(dir: string): Promise<void> {
  const store = await DeliveryStore.open(dir);
  const body = Buffer.alloc(BODY, 'x');
  for (let done = 0; done < BUILT; done += 500) {
    const adds = [];
    for (let i = done; i < Math.min(BUILT, done + 500); i++)
      adds.push(store.add({ channel: 'default', verification: 'verified', headers: [], targets: [] }, body));
    await Promise.all(adds);
  }
  await store.close();
}

/** Removes the segments' index files: the next start reads (and indexes again) every segment. */
function dropIndexFiles(dir: string): void {
  for (const name of readdirSync(dir)) if (name.endsWith('.idx')) rmSync(join(dir, name));
}

interface Started {
  url: string;
  kill: () => Promise<void>;
  stop: () => Promise<void>;
  /** Resolves once the relay says its index is built ("relay listening on"). */
  loaded: Promise<void>;
}

/** Spawns the relay on `dir`; resolves once it says it takes deliveries while its index loads. */
async function spawnLoading(dir: string, target: TargetApp): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, [await cli(), 'relay', '--port', String(port), '--data', dir, '--secret', SECRET, '--forward', target.url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = childOutput(child, 'relay');
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await within(output.saw(/accepting deliveries; loading the journal's index/), 60_000, () => `no loading line:\n${output.out()}`);
  const loaded = output.saw(/relay listening on/);
  loaded.catch(() => undefined);
  const signal = (s: NodeJS.Signals) => (child.exitCode === null && child.signalCode === null && child.kill(s), exited);
  return { url: `http://127.0.0.1:${port}`, loaded, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

async function getJson(url: string, agent: Agent, token?: string): Promise<{ status: number; json: Record<string, unknown>; retryAfter: unknown }> {
  const res = await request(url, { dispatcher: agent, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown>, retryAfter: res.headers['retry-after'] };
}

describe('relay ingress while the journal loads (real process, issue 40)', function () {
  this.timeout(300_000);
  let target: TargetApp;
  const agent = new Agent({ connections: 4 });
  before(async () => (target = await startTarget()));
  after(async () => {
    await target.close();
    await agent.close();
  });

  it('answers 200 while loading, survives a kill -9 during the load, lists and forwards each acknowledged delivery once', async () => {
    const dir = join(tempDir(), 'data');
    await buildJournal(dir);
    /** seq → body of every delivery answered 200. */
    const acked = new Map<number, string>();
    let n = 0;

    // Start 1: a delivery, then /healthz; repeated while the relay says it is still loading.
    dropIndexFiles(dir);
    const first = await spawnLoading(dir, target);
    let duringLoad = 0;
    let apiWhileLoading: Awaited<ReturnType<typeof getJson>> | undefined;
    for (;;) {
      const body = `{"n":${n++}}`;
      const seq = await deliverSigned(first.url, SECRET, body, agent);
      assert.ok(seq !== undefined, 'a delivery posted while the relay loads is answered 200');
      acked.set(seq, body);
      const health = await getJson(`${first.url}/healthz`, agent);
      if (health.json.starting !== true) break;
      assert.deepEqual(health.json, { ok: true, starting: true, accepting: true });
      duringLoad++;
      apiWhileLoading ??= await getJson(`${first.url}/api/status`, agent);
    }
    assert.ok(duringLoad > 0, 'at least one delivery was answered 200 while the index was being built');
    assert.equal(apiWhileLoading?.status, 503, 'the API answers 503 while loading');
    assert.equal(apiWhileLoading?.retryAfter, '1');
    assert.deepEqual(
      [...acked.keys()],
      Array.from({ length: acked.size }, (_, i) => BUILT + 1 + i),
      'seqs follow the journal in order',
    );
    await first.loaded;
    await within(target.waitFor(acked.size), 60_000, () => `forwarded ${target.received.length} of ${acked.size}`);
    await first.stop();

    // Start 2: killed (-9) during its load while two senders post.
    dropIndexFiles(dir);
    const second = await spawnLoading(dir, target);
    let killed = false;
    const sender = async () => {
      while (!killed) {
        const body = `{"n":${n++}}`;
        const seq = await deliverSigned(second.url, SECRET, body, agent);
        if (seq === undefined) continue;
        acked.set(seq, body);
        const health = await getJson(`${second.url}/healthz`, agent).catch(() => undefined);
        assert.ok(killed || health?.json.starting === true, 'the load ended before the kill: make the journal larger');
        if (!killed && acked.size >= duringLoad + 4) {
          killed = true;
          await second.kill();
        }
      }
    };
    await Promise.all([sender(), sender()]);
    const forwardedBefore = target.received.length;

    // Start 3: everything answered 200 is listed once and forwarded once.
    const third = await spawnLoading(dir, target);
    await third.loaded;
    const token = readFileSync(tokenFilePath(dir), 'utf8').trim();
    const list = await getJson(`${third.url}/api/deliveries?since=${BUILT}&limit=1000`, agent, token);
    assert.equal(list.status, 200);
    const listed = (list.json.deliveries as { seq: number }[]).map((d) => d.seq);
    assert.equal(new Set(listed).size, listed.length, 'each delivery listed once');
    for (const seq of acked.keys()) assert.ok(listed.includes(seq), `delivery ${seq}, answered 200, is listed`);
    const all = (received: { body: Buffer }[]) => [...acked.values()].every((b) => received.some((r) => r.body.toString() === b));
    await within(target.waitUntil(all), 60_000, () => `forwarded ${target.received.length - forwardedBefore} in this run, of ${acked.size} in all`);
    // Stopped (in-flight forwards finish first): no forward can come after this.
    await third.stop();
    const bodies = target.received.map((r) => r.body.toString());
    for (const body of acked.values()) assert.equal(bodies.filter((b) => b === body).length, 1, `${body} forwarded once`);
  });
});
