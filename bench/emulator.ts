// Benchmark: a bulk issue import of 100,000 issues into a repository that holds 200,000, against a
// real emulator (in process, 127.0.0.1, with a state file), while another client asks for the webhook list. Prints how
// long the import took and how long the concurrent request waited; writes bench/results/emulator.json.
// A benchmark, not a test: the figures are measured in this run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startEmulator } from '../relay/emulator';

const TOKEN = 'bench-token';
const STORED = 200_000;
const IMPORTED = 100_000;
const REPO = '/api/v1/repos/acme/widgets';

const issues = (from: number, n: number, title: string) =>
  Array.from({ length: n }, (_, i) => ({ number: from + i, title: `${title} ${from + i}`, body: 'b', labels: [], assignees: [], state: 'open' }));

async function post(base: string, body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await request(`${base}${REPO}/issues/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.body.text();
  if (res.statusCode !== 201) throw new Error(`import answered ${res.statusCode}`);
  return performance.now() - t0;
}

/** Asks for the webhook list every 50 ms until `done`; returns the longest wait. */
async function longestWait(base: string, done: () => boolean): Promise<number> {
  let worst = 0;
  while (!done()) {
    const t0 = performance.now();
    const res = await request(`${base}${REPO}/webhooks`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await res.body.text();
    worst = Math.max(worst, performance.now() - t0);
    await new Promise((r) => setTimeout(r, 50));
  }
  return worst;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sh-bench-emulator-'));
  // With a state file, as `npm start` runs it: the writes after the import are part of the cost.
  const emu = await startEmulator({ port: 0, token: TOKEN, state: join(dir, 'state.json'), maxBody: 256 * 1024 * 1024, log: () => {} });
  try {
    const seedMs = await post(emu.url, issues(1, STORED, 'stored'));
    let finished = false;
    const waiting = longestWait(emu.url, () => finished);
    // Half the import replaces stored issues, half is new.
    const importMs = await post(emu.url, issues(STORED - IMPORTED / 2 + 1, IMPORTED, 'imported'));
    finished = true;
    const worstWaitMs = await waiting;
    const result = {
      stored: STORED,
      imported: IMPORTED,
      seedMs: Math.round(seedMs),
      importMs: Math.round(importMs),
      worstConcurrentRequestMs: Math.round(worstWaitMs),
    };
    console.log(`bulk import of ${IMPORTED} issues into ${STORED} (in-process emulator, request + parse + validate + merge):`);
    console.log(`  seeding ${STORED}: ${result.seedMs} ms; the import: ${result.importMs} ms`);
    console.log(`  the longest a concurrent GET …/webhooks waited meanwhile: ${result.worstConcurrentRequestMs} ms`);
    const out = resolve(__dirname, 'results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'emulator.json'), JSON.stringify(result, null, 2) + '\n');
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:emulator failed: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
