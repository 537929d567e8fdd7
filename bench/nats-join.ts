// A relay instance joining a JetStream store of N deliveries (issue 40 item 4): the time from its
// spawn to its first GET /api/status 200 (its index complete), without an index snapshot (it reads
// both streams from the start) and with one (restored from the object store, then the streams
// from P + 1), in one run, beside the goal of 2 s.
//   1. one nats-server; the streams made by the store itself; N deliveries (a quarter with a
//      forward attempt) published straight to the streams in the store's own message format
//      (relay/server/nats/natsLog.ts), in pipelined batches;
//   2. a relay process joins: no snapshot yet (read from the start); stopped with SIGTERM, its
//      clean close writes the snapshot;
//   3. a relay process joins from the snapshot;
//   4. the snapshot removed, a relay process joins without it again (the streams now in the page cache).
// N defaults to 1,000,000, scaled down (the reason printed) when publishing them would take more
// than PUBLISH_BUDGET_S on this machine.
//   npm run bench:nats-join [-- --n 1000000]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { headers as natsHeaders, connect } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { Agent } from 'undici';
import { tokenFilePath } from '../src/core/relay/ready';
import { NatsStore, META_HEADER } from '../relay/server/nats/natsStore';
import { SNAPSHOT_OBJECT, snapshotBucket } from '../relay/server/nats/snapshotObject';
import { startNats } from '../test/unit/nats/natsServers';
import { bundleCli, RELAY_READY, spawnListening, type Child } from './relayChild';
import { deliveryHeaders, get } from './relayProbe';

const { values } = parseArgs({ options: { n: { type: 'string', default: '1000000' } } });
const ASKED = Number(values.n);
const GOAL_MS = 2000;
const BATCH = 2000;
const PUBLISH_BUDGET_S = 240;
const BODY = Buffer.alloc(512, 0x61);
const PREFIX = 'SH';

/** The i-th delivery's and (every fourth) its attempt's messages, as NatsLog publishes them. */
function publishOne(js: JetStreamClient, i: number, seq: number): Promise<unknown>[] {
  const channel = i % 3 ? 'default' : 'ci';
  const h = natsHeaders();
  const meta = {
    channel,
    verification: 'verified',
    headers: deliveryHeaders(i, BODY.length),
    targets: ['http://127.0.0.1:9/app'],
    receivedAt: new Date().toISOString(),
  };
  h.set(META_HEADER, JSON.stringify(meta));
  const out: Promise<unknown>[] = [js.publish(`sh.deliveries.${channel}`, BODY, { headers: h, msgID: randomUUID() })];
  if (i % 4 === 0) {
    const id = randomUUID();
    const at = new Date().toISOString();
    const attempt = {
      id,
      seq,
      attempt: { target: 'http://127.0.0.1:9/app', at, status: 200, ok: true, durationMs: 2 },
      state: { target: 'http://127.0.0.1:9/app', status: 'ok', lastStatus: 200, attempts: 1 },
    };
    out.push(js.publish(`sh.attempts.${channel}`, Buffer.from(JSON.stringify(attempt)), { msgID: id }));
  }
  return out;
}

/** Publishes deliveries from index `from` until `to`, in pipelined batches; seqs follow the stream's (it starts empty). */
async function publish(js: JetStreamClient, from: number, to: number): Promise<void> {
  for (let done = from; done < to; done += BATCH) {
    const batch: Promise<unknown>[] = [];
    for (let i = done; i < Math.min(to, done + BATCH); i++) batch.push(...publishOne(js, i, i + 1));
    await Promise.all(batch);
  }
}

/** Spawns a relay on the store; the ms from the spawn to its first GET /api/status 200. */
async function join_(cli: string, root: string, urls: string, agent: Agent): Promise<{ relay: Child; ms: number; lines: string }> {
  const data = mkdtempSync(join(root, 'data-'));
  const t0 = performance.now();
  const relay = await spawnListening(
    [],
    cli,
    ['relay', '--port', '0', '--ready', 'json', '--data', data, '--secret', 's', '--store', urls, '--keep', '100000000'],
    RELAY_READY,
    'pipe',
  );
  const url = `http://127.0.0.1:${relay.port}`;
  for (;;) {
    try {
      await get(`${url}/api/status`, readFileSync(tokenFilePath(data), 'utf8').trim(), agent);
      const ms = performance.now() - t0;
      return { relay, ms, lines: relay.err() + relay.out() };
    } catch {
      await new Promise((r) => setTimeout(r, 5)); // a bench, not a test: polled
    }
  }
}

async function stop(c: Child): Promise<void> {
  const exited = new Promise((r) => c.child.once('exit', r));
  c.child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const nats = await startNats(1);
  const dir = mkdtempSync(join(tmpdir(), 'sh-join-cli-'));
  const agent = new Agent();
  try {
    const cli = await bundleCli(dir);
    // The streams as the store makes them (their config, subjects, replicas).
    await (await NatsStore.open(await connect({ servers: nats.urls }), { prefix: PREFIX, snapshot: false })).close();
    const nc = await connect({ servers: nats.urls });
    const js = jetstream(nc);
    const probe = Math.min(ASKED, 20_000);
    const t0 = performance.now();
    await publish(js, 0, probe);
    const perSecond = probe / ((performance.now() - t0) / 1000);
    let n = ASKED;
    if (ASKED / perSecond > PUBLISH_BUDGET_S) {
      n = Math.max(probe, Math.floor((perSecond * PUBLISH_BUDGET_S) / 100_000) * 100_000);
      console.log(
        `SCALED DOWN to ${n.toLocaleString('en')} deliveries: this machine publishes ${perSecond.toFixed(0)}/s, ${ASKED.toLocaleString('en')} would take ${(ASKED / perSecond).toFixed(0)} s (> ${PUBLISH_BUDGET_S} s)`,
      );
    }
    await publish(js, probe, n);
    const published = (performance.now() - t0) / 1000;
    console.log(`published ${n.toLocaleString('en')} deliveries and ${Math.ceil(n / 4).toLocaleString('en')} attempts in ${published.toFixed(0)} s`);

    const without = await join_(cli, dir, nats.urls, agent);
    const tStop = performance.now();
    await stop(without.relay); // its clean close writes the snapshot
    const closeS = (performance.now() - tStop) / 1000;
    const os = await new Objm(nc).open(snapshotBucket(PREFIX));
    const info = await os.info(SNAPSHOT_OBJECT);
    if (!info) throw new Error(`no snapshot was written at the clean close:\n${without.lines}`);
    const withSnapshot = await join_(cli, dir, nats.urls, agent);
    const used = !withSnapshot.lines.includes('index snapshot');
    await stop(withSnapshot.relay);
    await os.delete(SNAPSHOT_OBJECT);
    const again = await join_(cli, dir, nats.urls, agent);
    await stop(again.relay);
    await nc.close();

    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(
      `a relay joining a stream of ${n.toLocaleString('en')} deliveries: spawn → first GET /api/status 200 (goal ≤ ${s(GOAL_MS)}), load average ${load}`,
    );
    console.log(`  without a snapshot (read from the start)        ${s(without.ms)}`);
    console.log(
      `  with the snapshot (${(info.size / 1e6).toFixed(0)} MB, written in ${closeS.toFixed(1)} s at the close) ${s(withSnapshot.ms)}${used ? '' : ' — NOT USED'}  ${withSnapshot.ms <= GOAL_MS ? 'meets' : 'misses'} the goal; ${(without.ms / withSnapshot.ms).toFixed(1)}× faster`,
    );
    console.log(`  without, again (streams in the page cache)      ${s(again.ms)}`);
  } finally {
    await agent.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
