// The store's share of a delivery's CPU (issue 24 ablation): DeliveryStore.begin() of a 1 KB
// delivery with the relay's seven headers, then its lazy attempt record, 32 in flight (group
// commit), as the relay does at c=32 — without HTTP, verification or forwarding. Prints user and
// system CPU per delivery. Give another checkout's root to compare two builds of the store:
//   node --import tsx bench/store-cpu.ts [ROOT] [N]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DeliveryStore as Store } from '../relay/server/store/store';

const root = resolve(process.argv[2] ?? join(__dirname, '..'));
const N = Number(process.argv[3] ?? 20000);
const TARGET = 'http://127.0.0.1:4444/webhook';

async function main(): Promise<void> {
  // The store of another checkout (a build to compare), before or after relay/server got its rooms.
  const at = existsSync(join(root, 'relay/server/store/store.ts')) ? 'relay/server/store/store' : 'relay/server/store';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded from a path known only at run time
  const { DeliveryStore } = require(join(root, at)) as { DeliveryStore: typeof Store };
  const dir = mkdtempSync(join(tmpdir(), 'sh-bench-store-cpu-'));
  const store = await DeliveryStore.open(dir);
  const body = Buffer.alloc(1024, 0x61);
  let next = 0;
  const caller = async () => {
    while (next < N) {
      const i = next++;
      const headers: [string, string][] = [
        ['host', '127.0.0.1:33333'],
        ['content-type', 'application/json'],
        ['x-service-signature', `sha256=${'a'.repeat(64)}`],
        ['x-service-event', 'push'],
        ['x-service-delivery', `relay-r1-32-${i}`],
        ['content-length', '1024'],
        ['connection', 'keep-alive'],
      ];
      const { seq, durable } = store.begin({ channel: 'default', verification: 'verified', headers, targets: [TARGET] }, body);
      await durable;
      await store.recordAttempt(
        seq,
        { target: TARGET, at: new Date().toISOString(), status: 200, ok: true, durationMs: 1.5 },
        { target: TARGET, status: 'ok', attempts: 1, lastStatus: 200 },
        { lazy: true },
      );
    }
  };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 32 }, caller));
  const cpu = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  console.log(`${root}: ${(cpu.user / N).toFixed(1)} µs user + ${(cpu.system / N).toFixed(1)} µs system CPU per delivery, ${((N / ms) * 1000).toFixed(0)}/s`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

void main();
