// Journals for the index snapshot tests (issue 40), generated from a seed: several channels and
// generations, verified / unverified / rejected deliveries (some kept as a prefix), one, two or no
// targets, attempts ok / failed / pending / skipped, replays, prunes, dropped rejected deliveries;
// and what every query of a store answers, to compare a store opened from a snapshot with one
// rebuilt from the journal.
import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreOptions } from '../../../../../relay/server/store/store';
import type { LogStore } from '../../../../../relay/server/store/logStore';
import type { ForwardStatus, Verification } from '../../../../../src/core/relay/protocol';
import type { StoreListQuery } from '../../../../../relay/server/base/storeTypes';

/** A small deterministic generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHANNELS: { channel: string; gen?: string }[] = [{ channel: 'default' }, { channel: 'ci' }, { channel: 'api', gen: 'g1' }, { channel: 'api', gen: 'g2' }];
const TARGETS = [[], ['http://127.0.0.1:9/a'], ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b']];
const STATUSES: ForwardStatus[] = ['ok', 'failed', 'pending', 'skipped'];

/** Options every store of a world is opened with (small segments: many of them, several sealed). */
export function worldOptions(rnd: () => number, extra: StoreOptions = {}): StoreOptions {
  let clock = Date.UTC(2026, 0, 1);
  return { segmentBytes: 3000, checkpointBytes: 1500, now: () => (clock += 1 + Math.floor(rnd() * 5000)), lastsFile: undefined, ...extra };
}

/** A lowercase UUID from `rnd` (the form of the service's delivery ids). */
function uuid(rnd: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rnd() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Runs `steps` generated operations on `store` (without prunes and drops: `appendOnly`). */
export async function run(store: LogStore, rnd: () => number, steps: number, appendOnly = false): Promise<void> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  for (let i = 0; i < steps; i++) {
    const r = rnd();
    if (r < 0.55) {
      const ch = pick(CHANNELS);
      const v = rnd();
      const verification: Verification = v < 0.6 ? 'verified' : v < 0.8 ? 'unverified' : 'rejected';
      // Mostly the service's UUIDs (the index packs them), some ids of another form, some none.
      const id = rnd() < 0.6 ? uuid(rnd) : `d-${i}-${Math.floor(rnd() * 1e6)}`;
      const headers: [string, string][] = rnd() < 0.8 ? [['X-Service-Delivery', id]] : [];
      if (rnd() < 0.5) headers.push(['X-Service-Event', pick(['push', 'issue', 'ping'])]);
      await store.add(
        {
          ...ch,
          verification,
          headers,
          targets: pick(TARGETS),
          ...(verification === 'rejected' ? { reason: pick(['bad signature', 'no signature']) } : {}),
          ...(verification === 'rejected' && rnd() < 0.3 ? { received: { size: 9999, sha256: 'ab'.repeat(32) } } : {}),
        },
        Buffer.from(`{"i":${i}}`.padEnd(20 + Math.floor(rnd() * 200), ' ')),
      );
    } else if (r < 0.9) {
      const seqs = [...store.after(Math.max(0, store.lastSeq - 30))].filter((e) => e.summary.forward.length > 0);
      if (seqs.length === 0) continue;
      const e = pick(seqs);
      const target = pick(e.summary.forward).target;
      const status = pick(STATUSES);
      const replay = rnd() < 0.15;
      const at = new Date(Date.UTC(2026, 0, 2) + i * 1000).toISOString();
      await store.recordAttempt(
        e.seq,
        {
          target,
          at,
          ok: status === 'ok',
          durationMs: Math.floor(rnd() * 90),
          ...(status !== 'skipped' ? { status: status === 'ok' ? 200 : 503 } : {}),
          ...(status === 'failed' ? { error: 'HTTP 503' } : {}),
          ...(replay ? { replay } : {}),
        },
        replay ? undefined : { target, status, attempts: 1 + Math.floor(rnd() * 3), ...(status === 'pending' ? { nextAttemptAt: at, lastStatus: 503 } : {}) },
        { lazy: rnd() < 0.5 },
      );
    } else if (appendOnly) {
      continue;
    } else if (r < 0.95) {
      await store.prune({ keep: 20 + Math.floor(rnd() * 40) });
    } else {
      await store.dropRejected(Math.floor(rnd() * 5));
    }
  }
}

/** Cuts a torn record onto the end of the last segment (a write a kill interrupted). */
export function tearTail(dir: string): void {
  const torn = Buffer.alloc(14);
  torn.writeUInt32LE(500, 0);
  appendFileSync(join(dir, lastSegment(dir)), torn);
}

/**
 * Flips a byte of a record in the last segment after the snapshot's place (the damage a later
 * open finds there, records after it kept); false when the segment holds no record after it.
 */
export function damageAfterSnapshot(dir: string): boolean {
  const name = lastSegment(dir);
  const seg = Number(/\d+/.exec(name)![0]);
  const head = readFileSync(join(dir, 'index-snapshot.bin')).subarray(0, 24);
  const from = head.readDoubleLE(8) === seg ? head.readDoubleLE(16) : 0;
  const path = join(dir, name);
  const buf = readFileSync(path);
  // the first record header after `from` whose record is followed by another one
  let at = from;
  while (at + 9 < buf.length && at + 9 + buf.readUInt32LE(at) + 9 < buf.length && at < from + 1) at += 9 + buf.readUInt32LE(at);
  if (at + 9 + buf.readUInt32LE(at) + 9 >= buf.length || at + 12 >= buf.length) return false;
  buf[at + 11] ^= 0x5a; // inside its payload: its checksum fails
  writeFileSync(path, buf);
  // as if killed before its index checkpoint covered that record: the next open scans the segment
  rmSync(path.replace(/\.log$/, '.idx'), { force: true });
  return true;
}

function lastSegment(dir: string): string {
  return readdirSync(dir)
    .filter((n) => /^journal-\d+\.log$/.test(n))
    .sort()
    .at(-1)!;
}

export function copyOf(dir: string, to: string): string {
  cpSync(dir, to, { recursive: true });
  return to;
}

/** Each status, and the page filters (event, forward outcome, part of the delivery id). */
const QUERIES: Omit<StoreListQuery, 'limit' | 'before'>[] = [
  {},
  ...(['pending', 'failed', 'ok', 'verified', 'unverified', 'rejected'] as const).map((status) => ({ status })),
  { filter: { event: 'push' } },
  { filter: { forward: 'none' } },
  { filter: { forward: 'failed', verification: 'verified' } },
  { filter: { deliveryId: 'd-1' } },
];

/** Everything the store answers, as JSON: status, every page with every filter, pending, each delivery with its attempts and body, channel lasts, integrity. */
export async function answers(store: LogStore): Promise<string> {
  const out: Record<string, unknown> = {
    lastSeq: store.lastSeq,
    size: store.size,
    channels: store.channels(),
    integrity: store.integrity(),
    health: store.health(),
    pending: store.pending().map((e) => e.seq),
    lasts: CHANNELS.map((c) => store.lastSeqOf(c.gen ? `${c.channel}@${c.gen}` : c.channel)),
  };
  for (const q of QUERIES) {
    for (const channel of [undefined, 'ci', 'api@g2']) {
      const pages = [];
      let before: number | undefined;
      for (;;) {
        const page = store.list({ ...q, limit: 7, ...(before !== undefined ? { before } : {}), ...(channel ? { channel } : {}) });
        pages.push(page);
        if (page.length < 7) break;
        before = page.at(-1)!.seq;
      }
      out[`list ${JSON.stringify(q)} ${channel}`] = pages;
    }
  }
  const rows = [];
  for (const e of store.after(0))
    rows.push({
      seq: e.seq,
      summary: e.summary,
      attempts: e.attempts,
      size: e.size,
      body: await store.read(e.seq).then(
        (d) => d?.body.toString(),
        (err: Error) => err.message,
      ),
    });
  out.rows = rows;
  return JSON.stringify(out, null, 1);
}

export function snapshotSize(dir: string): number {
  try {
    return statSync(join(dir, 'index-snapshot.bin')).size;
  } catch {
    return 0;
  }
}
