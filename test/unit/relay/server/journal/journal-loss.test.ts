// A sealed segment cut short or deleted loses acknowledged deliveries: the relay says so loudly
// (which seqs), counts them in /api/status and reports them in /healthz and /readyz (issue 20
// item 5). A torn tail is only ever the newest segment's; a prune that removes segments is no loss.
import { strict as assert } from 'node:assert';
import { readdirSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { post, tempDir } from '../../support/helpers';
import { call } from '../../support/publicHelpers';

const segments = (dir: string) =>
  readdirSync(dir)
    .filter((n) => /^journal-\d+\.log$/.test(n))
    .sort();

async function listed(relay: RelayServer): Promise<number[]> {
  return ((await call('GET', `${relay.url}/api/deliveries?limit=1000`, relay.token)).json.deliveries as { seq: number }[]).map((d) => d.seq).reverse();
}

/** A relay on a fresh folder with small segments, `n` deliveries in it, closed; returns the folder and the seqs acknowledged. */
async function filled(n: number): Promise<{ dataDir: string; acked: number[] }> {
  const dataDir = tempDir();
  const relay = await startRelay({ port: 0, dataDir, segmentBytes: 2048 });
  const acked: number[] = [];
  for (let i = 0; i < n; i++) acked.push(((await post(`${relay.url}/hooks/default`, JSON.stringify({ i, pad: 'p'.repeat(300) }))).json as { seq: number }).seq);
  await relay.close();
  return { dataDir, acked };
}

async function reopen(dataDir: string): Promise<{ relay: RelayServer; lines: string[] }> {
  const lines: string[] = [];
  const relay = await startRelay({ port: 0, dataDir, segmentBytes: 2048, log: (l) => lines.push(l) });
  return { relay, lines };
}

const range = (seqs: number[]) => (seqs.length === 1 ? `seq ${seqs[0]}` : `seqs ${seqs[0]}-${seqs.at(-1)}`);

async function assertLoss(relay: RelayServer, lines: string[], lost: number[], cause: RegExp): Promise<void> {
  assert.ok(lost.length > 0);
  const line = lines.find((l) => /journal: ERROR: \d+ acknowledged deliveries are lost/.test(l));
  assert.ok(line, lines.join('\n'));
  assert.ok(line.includes(`${lost.length} acknowledged`) && line.includes(range(lost)), line);
  assert.match(line, cause);
  assert.ok(!lines.some((l) => /torn tail/.test(l)), 'not called a torn tail');
  const status = await call('GET', `${relay.url}/api/status`, relay.token);
  assert.equal(status.json.journal.lostDeliveries, lost.length);
  for (const path of ['/healthz', '/readyz']) {
    const res = await request(`${relay.url}${path}`);
    const json = (await res.body.json()) as { warning?: string };
    assert.equal(res.statusCode, 200);
    assert.ok(json.warning?.includes(range(lost)), `${path}: ${JSON.stringify(json)}`);
  }
}

describe('journal loss: a damaged or deleted sealed segment is reported, not hidden', function () {
  this.timeout(60_000);

  it('a sealed segment cut short in the middle of a record; still reported at the next start', async () => {
    const { dataDir, acked } = await filled(30);
    const segs = segments(dataDir);
    assert.ok(segs.length >= 4, `${segs.length} segments`);
    const victim = join(dataDir, segs[1]!);
    truncateSync(victim, Math.floor(statSync(victim).size / 2) + 7);
    let lost: number[];
    const first = await reopen(dataDir);
    try {
      const kept = await listed(first.relay);
      lost = acked.filter((s) => !kept.includes(s));
      await assertLoss(first.relay, first.lines, lost, /sealed segment \d+ cut short/);
      assert.ok(
        first.lines.some((l) => /ERROR: sealed segment \d+ is cut short/.test(l)),
        first.lines.join('\n'),
      );
    } finally {
      await first.relay.close();
    }
    // That start cut the damage off and indexed the segment again; the loss is still reported.
    const again = await reopen(dataDir);
    try {
      await assertLoss(again.relay, again.lines, lost, /sealed segment \d+ cut short/);
    } finally {
      await again.relay.close();
    }
  });

  it('a sealed segment cut at a record boundary (its index no longer matches)', async () => {
    const { dataDir, acked } = await filled(30);
    const segs = segments(dataDir);
    const victim = join(dataDir, segs[2]!);
    // The first record of the segment ends where the second begins: keep just that one.
    const { relay: probe } = await reopen(dataDir);
    const secondOfSegment = [...probe.store.after(0)].filter(
      (e) => (e as unknown as { loc: { segment: number } }).loc.segment === Number(/\d+/.exec(segs[2]!)![0]),
    )[1]!;
    const cutAt = (secondOfSegment as unknown as { loc: { offset: number } }).loc.offset;
    await probe.close();
    truncateSync(victim, cutAt);
    const { relay, lines } = await reopen(dataDir);
    try {
      const kept = await listed(relay);
      const lost = acked.filter((s) => !kept.includes(s));
      await assertLoss(relay, lines, lost, /sealed segment \d+ cut short/);
    } finally {
      await relay.close();
    }
  });

  it('a deleted segment', async () => {
    const { dataDir, acked } = await filled(30);
    const segs = segments(dataDir);
    unlinkSync(join(dataDir, segs[2]!));
    const { relay, lines } = await reopen(dataDir);
    try {
      const kept = await listed(relay);
      const lost = acked.filter((s) => !kept.includes(s));
      await assertLoss(relay, lines, lost, /segment \d+ missing/);
    } finally {
      await relay.close();
    }
  });

  it('no loss reported after a clean restart, nor after a prune removed segments', async () => {
    const { dataDir } = await filled(30);
    const pruned = await reopen(dataDir);
    assert.equal((await call('POST', `${pruned.relay.url}/api/prune`, pruned.relay.token, { keep: 5 })).status, 200);
    await pruned.relay.close();
    const { relay, lines } = await reopen(dataDir);
    try {
      assert.equal((await listed(relay)).length, 5);
      assert.ok(!lines.some((l) => /lost|ERROR/.test(l)), lines.join('\n'));
      assert.equal((await call('GET', `${relay.url}/api/status`, relay.token)).json.journal.lostDeliveries, undefined);
      assert.deepEqual(await (await request(`${relay.url}/readyz`)).body.json(), { ready: true });
    } finally {
      await relay.close();
    }
  });
});
