// Issue 40: a relay killed (-9) while it writes its index snapshot, deliveries arriving, loses
// none. A journal is written offline (its clean stop leaves a snapshot); the real relay process
// restores from it, takes deliveries, and starts a snapshot after 20 records, whose write stops
// half-way through its temporary file (SERVICE_HOOKS_TEST_SNAPSHOT_HOLD, test only); deliveries
// go on being answered 200 meanwhile; then kill -9. The next start uses the older snapshot (the
// temporary file is not one) and lists every delivery answered 200 once and forwards each once.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { DeliveryStore } from '../../../../relay/server/store/store';
import { SNAPSHOT_FILE } from '../../../../relay/server/journal/snapshotFile';
import { tokenFilePath } from '../../../../src/core/relay/ready';
import { deliverSigned, spawnRelay, startTarget, tempDir, within, type RelayProcess, type TargetApp } from '../support/helpers';

const SECRET = 'snapshot-kill-secret-0123456789';
const BUILT = 2000;

describe('relay killed while writing its index snapshot (real process, issue 40)', function () {
  this.timeout(120_000);
  let target: TargetApp;
  const agent = new Agent({ connections: 2 });
  before(async () => (target = await startTarget()));
  after(async () => {
    await target.close();
    await agent.close();
  });

  it('answers 200 while the write hangs; after kill -9 every delivery answered 200 is listed once and forwarded once', async () => {
    const dir = join(tempDir(), 'data');
    const store = await DeliveryStore.open(dir);
    for (let done = 0; done < BUILT; done += 250)
      await Promise.all(
        Array.from({ length: 250 }, (_, i) =>
          store.add({ channel: 'default', verification: 'verified', headers: [], targets: [] }, Buffer.from(`{"old":${done + i}}`)),
        ),
      );
    await store.close();
    const snapshot = join(dir, SNAPSHOT_FILE);
    const before = readFileSync(snapshot);

    // Run 1: the app holds every forward unanswered (no attempt is journaled: each is forwarded, answered 200, once, in run 2).
    target.status = 503;
    target.hold = () => new Promise<void>(() => undefined);
    const args = ['--data', dir, '--secret', SECRET, '--forward', target.url, '--snapshot-every', '20'];
    const first = await spawnRelay(args, { ...process.env, SERVICE_HOOKS_TEST_SNAPSHOT_HOLD: '1' });
    const acked = new Map<number, string>();
    let n = 0;
    const post = async (relay: RelayProcess) => {
      const body = `{"n":${n++}}`;
      const seq = await deliverSigned(relay.url, SECRET, body, agent);
      assert.ok(seq !== undefined, `delivery ${body} answered 200`);
      acked.set(seq, body);
    };
    while (!existsSync(`${snapshot}.tmp`) || statSync(`${snapshot}.tmp`).size === 0) await post(first);
    const whenHeld = acked.size;
    for (let i = 0; i < 10; i++) await post(first); // the snapshot's write hangs: ingress does not
    await first.stop('SIGKILL');
    assert.doesNotMatch(first.stdout() + first.stderr(), /snapshot does not match/, 'the relay started from the snapshot its build wrote');
    assert.ok(readFileSync(snapshot).equals(before), 'the snapshot in place is the one written before the kill');
    assert.equal(acked.size, whenHeld + 10, 'each delivery posted while the write hung was answered 200, under its own seq');

    // Run 2: the app answers 200.
    target.hold = undefined;
    target.status = 200;
    const forwardedBefore = target.received.length;
    const second = await spawnRelay(args);
    try {
      await within(second.saw(/relay listening on/), 60_000, () => second.stdout());
      assert.doesNotMatch(second.stdout() + second.stderr(), /snapshot does not match/);
      const token = readFileSync(tokenFilePath(dir), 'utf8').trim();
      const res = await request(`${second.url}/api/deliveries?since=${BUILT}&limit=1000`, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
      const listed = ((await res.body.json()) as { deliveries: { seq: number }[] }).deliveries.map((d) => d.seq);
      assert.equal(new Set(listed).size, listed.length, 'each delivery listed once');
      assert.deepEqual(
        [...acked.keys()].filter((seq) => !listed.includes(seq)),
        [],
        'every delivery answered 200 is listed',
      );
      const answered = () => target.received.slice(forwardedBefore).filter((r) => r.status === 200);
      await within(
        target.waitUntil(() => [...acked.values()].every((b) => answered().some((r) => r.body.toString() === b))),
        60_000,
        () => `forwarded ${answered().length} of ${acked.size}`,
      );
    } finally {
      await second.stop(); // in-flight forwards finish first: none can come after this
    }
    const bodies = target.received.slice(forwardedBefore).map((r) => r.body.toString());
    for (const body of acked.values()) assert.equal(bodies.filter((b) => b === body).length, 1, `${body} forwarded once`);
  });
});
