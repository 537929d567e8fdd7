// The compact index against a plain model: a seeded random mix of inserts (seq gaps and jumps,
// receipt times far apart, offsets past 4 GiB, ids of every form, 0-2 targets, rejected ones),
// attempts with and without states (errors, replays, fractional and huge durations, hundreds of
// statuses, counts past a byte, a subscriber's target), hides and drops, and after every step
// every query answered as the model says: size, list pages with each filter, counts, pending,
// rows with their attempts and forward states, channel lasts, floors.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { CompactIndex, type AttemptFields, type StateFields } from '../../../../../relay/server/deliveryIndex/compactIndex';
import { flagsOf, stateObject, ALL_OK, FAILED, PENDING } from '../../../../../relay/server/deliveryIndex/indexColumns';
import { sizeFields } from '../../../../../relay/server/base/rejected';
import { channelKey, channelOfKey } from '../../../../../relay/server/base/channelKey';
import type { ForwardAttempt, ForwardState, RelayDeliverySummary, Verification } from '../../../../../src/core/relay/protocol';

function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Row {
  seq: number;
  key: string;
  summary: Omit<RelayDeliverySummary, 'forward'>;
  receivedMs: number;
  loc: { segment: number; offset: number; length: number };
  size: number;
  targets: string[];
  states: ForwardState[];
  /** States kept as objects (not a one-target row's own). */
  objects: boolean;
  attempts: ForwardAttempt[];
  hidden: boolean;
}

const TARGETS = ['http://a/1', 'http://b/2', 'http://c/3'];
const SUBSCRIBER = 'subscriber:x';

class Model {
  rows: Row[] = [];
  lasts = new Map<string, number>();
  hiddenUpTo = 0;

  visible(): Row[] {
    return this.rows.filter((r) => !r.hidden);
  }

  flags(r: Row): number {
    if (r.objects || r.targets.length !== 1) return flagsOf(r.states);
    const s = r.states[0]!.status;
    return s === 'ok' ? ALL_OK : s === 'pending' ? PENDING : FAILED;
  }

  summary(r: Row): RelayDeliverySummary {
    return { ...r.summary, forward: r.states.map((f) => ({ ...f })) };
  }

  apply(r: Row, a: AttemptFields, st: StateFields | undefined): void {
    const status = (a.status ?? 0) & 0xffff;
    r.attempts.push({
      target: a.target,
      at: new Date(a.atMs).toISOString(),
      ...(status ? { status } : {}),
      ok: a.ok,
      durationMs: a.durationMs,
      ...(a.error !== undefined ? { error: a.error } : {}),
      ...(a.replay ? { replay: true } : {}),
    });
    if (!st) return;
    if (r.targets.length === 1 && r.targets[0] === st.target && !r.objects) {
      const last = (st.lastStatus ?? 0) & 0xffff;
      r.states = [stateObject(st.target, { ...st, attempts: st.attempts >>> 0, lastStatus: last || undefined })];
      return;
    }
    r.objects = true;
    const at = r.states.findIndex((f) => f.target === st.target);
    if (at < 0) r.states.push(stateObject(st.target, st));
    else r.states[at] = stateObject(st.target, st);
  }

  counts(): object[] {
    const by = new Map<
      string,
      {
        name: string;
        key: string;
        received: number;
        verified: number;
        unverified: number;
        rejected: number;
        forwarded: number;
        failed: number;
        pending: number;
      }
    >();
    for (const k of this.lasts.keys())
      by.set(k, { name: channelOfKey(k), key: k, received: 0, verified: 0, unverified: 0, rejected: 0, forwarded: 0, failed: 0, pending: 0 });
    for (const r of this.visible()) {
      const c = by.get(r.key)!;
      const f = this.flags(r);
      c.received++;
      c[r.summary.verification]++;
      if (f & ALL_OK) c.forwarded++;
      if (f & FAILED) c.failed++;
      if (f & PENDING) c.pending++;
    }
    return [...by.values()].filter((c) => c.received > 0).sort((a, b) => a.name.localeCompare(b.name));
  }

  list(q: { before?: number; since?: number; channel?: string; status?: string; limit?: number }): RelayDeliverySummary[] {
    const limit = Math.max(1, Math.min(q.limit ?? 100, 10_000));
    const match = (r: Row): boolean => {
      const f = this.flags(r);
      if (q.status === 'pending') return (f & PENDING) !== 0;
      if (q.status === 'failed') return (f & FAILED) !== 0;
      if (q.status === 'ok') return (f & ALL_OK) !== 0;
      return q.status === undefined || r.summary.verification === q.status;
    };
    return this.visible()
      .filter((r) => (q.before === undefined || r.seq < q.before) && (q.since === undefined || r.seq > q.since))
      .filter((r) => (q.channel === undefined || r.key === q.channel) && match(r))
      .reverse()
      .slice(0, limit)
      .map((r) => this.summary(r));
  }
}

function check(ix: CompactIndex, m: Model, rand: () => number, step: number): void {
  const vis = m.visible();
  const at = `step ${step}`;
  assert.equal(ix.size, vis.length, at);
  assert.equal(ix.firstSeq, vis.length > 0 ? m.rows[0]!.seq : undefined, at); // (the first row's, hidden or not)
  assert.deepEqual(ix.list({ limit: 10_000 }), m.list({ limit: 10_000 }), at);
  assert.deepEqual(ix.channelStatus(), m.counts(), at);
  assert.deepEqual(
    ix.pending().map((r) => r.seq),
    vis.filter((r) => m.flags(r) & PENDING).map((r) => r.seq),
    at,
  );
  const keys = [...m.lasts.keys(), 'none\n'];
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(rand() * xs.length)];
  for (const status of [undefined, 'pending', 'failed', 'ok', 'verified', 'unverified', 'rejected', 'skipped'] as const) {
    const q = {
      channel: rand() < 0.5 ? pick(keys) : undefined,
      status,
      limit: 1 + Math.floor(rand() * 8),
      before: rand() < 0.3 ? pick(vis)?.seq : undefined,
      since: rand() < 0.3 ? pick(vis)?.seq : undefined,
    };
    assert.deepEqual(ix.list(q), m.list(q), `${at} ${JSON.stringify(q)}`);
  }
  for (const k of keys) assert.equal(ix.lastSeqOf(k), m.lasts.get(k) ?? 0, `${at} last of ${k}`);
  const cut = pick(vis)?.seq ?? 1;
  assert.deepEqual(
    ix.lastsBelow(cut),
    [...m.lasts].filter(([, s]) => s > 0 && s < cut),
    at,
  );
  for (const rejected of [false, true]) {
    const keep = Math.floor(rand() * 6);
    const kind = vis.filter((r) => (r.summary.verification === 'rejected') === rejected).reverse();
    assert.equal(ix.floorKeeping(keep, rejected), kind[keep]?.seq ?? 0, `${at} floor`);
  }
  for (let k = 0; k < 4; k++) {
    const r = pick(m.rows);
    if (!r) break;
    const i = ix.find(r.seq);
    if (r.hidden) {
      assert.equal(i, -1, at);
      continue;
    }
    const row = ix.row(i);
    assert.deepEqual(
      { seq: row.seq, receivedMs: row.receivedMs, loc: row.loc, size: row.size },
      { seq: r.seq, receivedMs: r.receivedMs, loc: r.loc, size: r.size },
      at,
    );
    assert.deepEqual(row.summary, m.summary(r), at);
    assert.deepEqual(row.attempts, r.attempts, at);
    assert.equal(row.channelKey, r.key, at);
    for (const t of [...TARGETS, SUBSCRIBER])
      assert.deepEqual(
        ix.forwardStateAt(i, t),
        r.states.find((f) => f.target === t),
        at,
      );
  }
}

/** `steps` random operations, every query checked every `every` steps; drops in `drops` of them. */
function run(seed: number, steps: number, every = 1, drops = 0.07): void {
  const rand = prng(seed);
  const ix = new CompactIndex();
  const m = new Model();
  let seq = 0;
  let now = Date.UTC(2026, 0, 1);
  let offset = 0;
  const int = (n: number) => Math.floor(rand() * n);
  const id = (): string | undefined => {
    const u = randomUUID();
    return [u, u, u, u.toUpperCase(), `test-${u}`, undefined, `id-${int(1000)}`, ''][int(8)];
  };
  for (let step = 0; step < steps; step++) {
    const op = rand();
    if (op < 0.45 || m.rows.length === 0) {
      const next = seq + (rand() < 0.9 ? 1 : rand() < 0.5 ? 2 + int(5) : 2 ** 33 + int(100));
      now += rand() < 0.97 ? int(5000) : (rand() < 0.5 ? -1 : 1) * 60 * 86_400_000;
      const receivedMs = rand() < 0.02 ? now + 0.5 : now;
      offset = rand() < 0.05 ? 2 ** 32 + int(1000) : rand() < 0.1 ? 0 : offset + 100 + int(2000);
      const verification = (['verified', 'unverified', 'rejected'] as Verification[])[int(3)]!;
      const channel = ['a', 'b', 'c'][int(3)]!;
      const gen = rand() < 0.2 ? 'g2' : undefined;
      const targets = [[], [TARGETS[0]!], [TARGETS[int(3)]!], [TARGETS[0]!, TARGETS[1]!]][int(4)]!;
      const d = {
        seq: next,
        receivedMs,
        channel,
        ...(gen ? { gen } : {}),
        verification,
        event: rand() < 0.8 ? ['push', 'ping'][int(2)] : undefined,
        deliveryId: id(),
        metaLength: 0,
        targets,
      };
      if (rand() < 0.1) Object.assign(d, { reason: 'bad signature' });
      if (rand() < 0.05) Object.assign(d, { received: { size: 5000 + int(100), sha256: 'ab'.repeat(32) } });
      const size = int(5000);
      const loc = { segment: int(3) + Math.floor(seq / 50), offset, length: int(70_000) };
      const visible = m.visible();
      if (visible.length > 0 && rand() < 0.05) {
        assert.equal(ix.insert({ ...d, seq: visible[visible.length - 1]!.seq }, size, loc), false);
        continue;
      }
      seq = next;
      assert.equal(ix.insert(d, size, loc), true);
      const key = channelKey(channel, gen);
      m.lasts.set(key, seq);
      const t = verification === 'rejected' ? [] : targets;
      const summary = {
        seq,
        channel,
        receivedAt: new Date(receivedMs).toISOString(),
        verification,
        ...('reason' in d ? { reason: 'bad signature' } : {}),
        event: d.event,
        deliveryId: d.deliveryId,
        ...sizeFields(d as { received?: { size: number; sha256: string } }, size),
      };
      m.rows.push({
        seq,
        key,
        summary,
        receivedMs,
        loc,
        size,
        targets: t,
        states: t.map((x) => ({ target: x, status: 'pending', attempts: 0 })),
        objects: false,
        attempts: [],
        hidden: false,
      });
    } else if (op < 0.85) {
      const r = m.rows[m.rows.length - 1 - int(Math.min(m.rows.length, 20))]!;
      const target = rand() < 0.1 ? SUBSCRIBER : (r.targets[int(r.targets.length)] ?? TARGETS[int(3)]!);
      const statuses = [200, 200, 200, 502, 0, 70_000, 300 + int(400)];
      const a: AttemptFields = {
        target,
        atMs: r.receivedMs + (rand() < 0.9 ? int(100_000) : -int(1000)) + (rand() < 0.03 ? 0.25 : 0),
        ok: rand() < 0.7,
        durationMs: rand() < 0.9 ? Math.round(rand() * 5e6) / 1000 : rand() * 1e10,
        ...(rand() < 0.8 ? { status: statuses[int(statuses.length)] } : {}),
        ...(rand() < 0.1 ? { error: 'ECONNREFUSED' } : {}),
        ...(rand() < 0.1 ? { replay: true } : {}),
      };
      const st: StateFields | undefined =
        rand() < 0.8
          ? {
              target,
              status: (['pending', 'ok', 'failed', 'skipped'] as const)[int(4)],
              attempts: rand() < 0.1 ? 250 + int(20) : int(5),
              ...(rand() < 0.8 ? { lastStatus: statuses[int(statuses.length)] } : {}),
              ...(rand() < 0.3 ? { nextAttemptMs: r.receivedMs + int(1e6) } : {}),
            }
          : undefined;
      assert.equal(ix.applyAttempt(r.seq, a, st), !r.hidden);
      if (!r.hidden) m.apply(r, a, st);
    } else if (op < 1 - drops) {
      const upTo = m.rows[int(m.rows.length)]!.seq;
      ix.hideRejectedUpTo(upTo);
      if (upTo > m.hiddenUpTo) for (const r of m.rows) if (r.seq > m.hiddenUpTo && r.seq <= upTo && r.summary.verification === 'rejected') r.hidden = true;
      m.hiddenUpTo = Math.max(m.hiddenUpTo, upTo);
    } else {
      const min = m.rows[Math.floor(rand() * rand() * m.rows.length)]!.seq;
      const gone = m.rows.filter((r) => r.seq < min);
      assert.equal(ix.dropBelow(min), gone.filter((r) => !r.hidden).length, `step ${step} drop`);
      m.rows = m.rows.filter((r) => r.seq >= min);
    }
    if (step % every === every - 1) check(ix, m, rand, step);
  }
  check(ix, m, rand, steps);
}

describe('the compact index against a plain model', () => {
  for (const seed of [1, 2, 3, 4]) it(`answers every query as the model does (seed ${seed})`, () => run(seed, 1500));

  it('keeps its answers through growth, drops and compaction past 4,096 rows', () => run(99, 40_000, 2_000, 0.0005));
});
