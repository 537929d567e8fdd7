// The stores beneath the relay, without HTTP (issue 24): what a JetStream publish pipeline gives
// against the file journal, on one connection, 1 KB messages with a message id (as the relay's
// deliveries carry), file storage:
//   - one at a time: each publish awaits its acknowledgement before the next;
//   - 16 callers: 16 publishes in flight, each awaiting its own ack (what the relay does at c=16);
//   - pipelined: batches of 16 (or 64) published back to back, their acks awaited together;
// and the file journal (DeliveryStore.begin, 16 in flight, group commit) as the yardstick.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, StorageType, type JetStreamClient } from '@nats-io/jetstream';
import { DeliveryStore } from '../relay/server/store/store';

export interface PublishRates {
  store: string;
  mode: string;
  perSecond: number;
  /** CPU time per message of the nats-server processes and of this process (the client), when measured. */
  cpuUs?: { servers: number; client: number };
}

/** user + system CPU time of process `pid` so far, in µs (Linux /proc; clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

/** Runs `fn` and says how much CPU the processes `pids` and this one used per message of `n`. */
async function withCpu<T>(pids: number[], n: number, fn: () => Promise<T>): Promise<{ value: T; cpuUs: { servers: number; client: number } }> {
  const s0 = pids.reduce((t, p) => t + cpuOf(p), 0);
  const c0 = process.cpuUsage();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { value, cpuUs: { servers: (pids.reduce((t, p) => t + cpuOf(p), 0) - s0) / n, client: (c.user + c.system) / n } };
}

const BODY = Buffer.alloc(1024, 0x61);

/** Messages per second of `send(i)` run by `callers` workers over `n` messages. */
async function rate(n: number, callers: number, send: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < n) await send(next++);
    }),
  );
  return (n / (performance.now() - t0)) * 1000;
}

/** Batches of `depth` publishes sent back to back, each batch's acks awaited together. */
async function pipelined(js: JetStreamClient, subject: string, n: number, depth: number): Promise<number> {
  const t0 = performance.now();
  for (let done = 0; done < n; done += depth) {
    const batch = [];
    for (let i = done; i < Math.min(n, done + depth); i++) batch.push(js.publish(subject, BODY, { msgID: randomUUID() }));
    await Promise.all(batch);
  }
  return (n / (performance.now() - t0)) * 1000;
}

/** The JetStream rates on the servers `urls` with a stream of `replicas`. */
export async function jetStreamRates(urls: string, replicas: number, n: number, serverPids: number[] = []): Promise<PublishRates[]> {
  const nc = await connect({ servers: urls.split(',') });
  const name = `BENCH_PUBLISH_R${replicas}`;
  const subject = `benchpublish${replicas}.x`;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name, subjects: [`benchpublish${replicas}.>`], num_replicas: replicas, storage: StorageType.File });
    const js = jetstream(nc);
    const store = `JetStream R${replicas}`;
    const publish = () => js.publish(subject, BODY, { msgID: randomUUID() });
    await rate(200, 16, publish); // warm-up
    return [
      { store, mode: 'one at a time', perSecond: await rate(Math.min(n, 1000), 1, publish) },
      { store, mode: '16 callers, each ack awaited alone', perSecond: await rate(n, 16, publish) },
      { store, mode: 'pipelined, batches of 16', perSecond: await pipelined(js, subject, n, 16) },
      await withCpu(serverPids, n, () => pipelined(js, subject, n, 64)).then(({ value, cpuUs }) => ({
        store,
        mode: 'pipelined, batches of 64',
        perSecond: value,
        ...(serverPids.length ? { cpuUs } : {}),
      })),
    ];
  } finally {
    await nc.drain();
  }
}

/** The file journal: DeliveryStore.begin with 16 in flight (every one durable before the next of its caller). */
export async function fileJournalRate(n: number): Promise<PublishRates> {
  const dir = mkdtempSync(join(tmpdir(), 'sh-bench-publish-'));
  const store = await DeliveryStore.open(dir);
  try {
    const headers: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['X-Service-Delivery', randomUUID()],
    ];
    const add = () => store.add({ channel: 'default', verification: 'verified', headers, targets: [] }, BODY);
    await rate(200, 16, add);
    return { store: 'file journal', mode: '16 callers (group commit)', perSecond: await rate(n, 16, add) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
