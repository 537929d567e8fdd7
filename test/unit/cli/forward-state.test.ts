// `service-hooks forward`'s state file (relay/cli/forwardState.ts): one per relay and token scope
// (issue 36 item 1), 0600, written whole, and a damaged one named with what to do.
import { strict as assert } from 'node:assert';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  defaultStateFile,
  forwardState,
  readStateFile,
  relayStateFile,
  scopedStateFile,
  StateFileError,
  writeStateFile,
} from '../../../relay/cli/forwardState';
import { tempDir } from '../relay/support/helpers';

describe('forward state file', () => {
  it('one file per relay and channel, under XDG_STATE_HOME (else ~/.local/state)', () => {
    const env = { HOME: '/home/dev' };
    const a = defaultStateFile(env, 'ws://127.0.0.1:8788', undefined);
    assert.equal(a, defaultStateFile(env, 'ws://127.0.0.1:8788/ws', undefined), 'the /ws path names the same relay');
    assert.match(a, /^\/home\/dev\/\.local\/state\/service-hooks\/forward\/127\.0\.0\.1_8788-all-[0-9a-f]{12}\.json$/);
    assert.notEqual(defaultStateFile(env, 'wss://relay.example.com', 'alice'), defaultStateFile(env, 'wss://relay.example.com', 'bob'));
    assert.match(
      defaultStateFile({ ...env, XDG_STATE_HOME: '/state' }, 'wss://relay.example.com', 'alice'),
      /^\/state\/service-hooks\/forward\/relay\.example\.com_443-alice-/,
    );
  });

  it('is written 0600 and read back; a damaged one is a clear error naming the file', () => {
    const file = join(tempDir(), 'deep', 'f.json');
    assert.equal(readStateFile(file), undefined, 'none yet');
    writeStateFile(file, { lastSeq: 7, retrying: [{ seq: 5, channel: 'dev', attempts: 1, nextAt: 1, lastStatus: 500 }] });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readStateFile(file), { lastSeq: 7, retrying: [{ seq: 5, channel: 'dev', attempts: 1, nextAt: 1, lastStatus: 500 }] });
    writeFileSync(file, '{"lastSeq": 7, "retr');
    assert.throws(
      () => readStateFile(file),
      (err: Error) => err instanceof StateFileError && err.message.includes(file) && /--since/.test(err.message),
    );
    writeFileSync(file, '{"lastSeq": "7", "retrying": []}');
    assert.throws(() => readStateFile(file), /unexpected content/);
  });

  it('one file per token scope: two channel tokens (or generations) never share one', () => {
    const env = { HOME: '/home/dev' };
    const relay = 'ws://127.0.0.1:8788';
    const alice = scopedStateFile(env, relay, { kind: 'channel', channel: 'alice', generation: 'g1' }, undefined);
    assert.match(alice, /\/127\.0\.0\.1_8788-alice-[0-9a-f]{12}\.json$/);
    const files = [
      alice,
      scopedStateFile(env, relay, { kind: 'channel', channel: 'bob', generation: 'g2' }, undefined),
      scopedStateFile(env, relay, { kind: 'channel', channel: 'alice', generation: 'g3' }, undefined),
      scopedStateFile(env, relay, { kind: 'admin' }, undefined),
      scopedStateFile(env, relay, { kind: 'admin' }, 'alice'),
      defaultStateFile(env, relay, undefined),
      defaultStateFile(env, relay, 'alice'),
    ];
    assert.equal(new Set(files).size, files.length, files.join('\n'));
    const odd = scopedStateFile(env, relay, { kind: 'channel', channel: '../../../../up', generation: 'g' }, undefined);
    assert.equal(dirname(odd), dirname(alice), 'a name from the relay stays a file name in the folder');
    assert.equal(alice, scopedStateFile(env, `${relay}/ws`, { kind: 'channel', channel: 'alice', generation: 'g1' }, 'alice'));
  });

  it("refuses a file of another scope, and an older version's without --since (keeping only its own retrying deliveries then)", () => {
    const dir = tempDir();
    const file = join(dir, 'f.json');
    const o = { env: {}, cwd: dir, relayUrl: 'ws://127.0.0.1:1', file: 'f.json', scope: { kind: 'channel' as const, channel: 'bob', generation: 'g2' } };
    writeStateFile(file, { scope: 'channel bob@g2', lastSeq: 9, retrying: [] });
    assert.deepEqual(forwardState(o).store.load(), { lastSeq: 9, retrying: [] });
    writeStateFile(file, { scope: 'channel alice@g1', lastSeq: 9, retrying: [] });
    assert.throws(() => forwardState(o), {
      message: `the forward state ${file} was written for channel alice@g1, and this token reads channel bob@g2: pass another --state FILE (without --state each token has its own), or delete it`,
    });
    const retrying = [
      { seq: 4, channel: 'alice', attempts: 1, nextAt: 1 },
      { seq: 5, channel: 'bob', attempts: 1, nextAt: 1 },
    ];
    writeStateFile(file, { lastSeq: 9, retrying });
    assert.throws(
      () => forwardState(o),
      /was written by an older service-hooks .*\(it resumes after seq 9\): if it is this forwarder's, restart with --since 9/,
    );
    assert.deepEqual(forwardState({ ...o, since: 3 }).store.load(), { retrying: [retrying[1]] });
  });

  it('a relay too old to name the scope: the file per relay and --channel, unchecked, recording none; taken over for --channel later', async () => {
    const env = { XDG_STATE_HOME: tempDir() };
    const o = { env, cwd: '/', relayUrl: 'ws://127.0.0.1:2', channel: 'dev' };
    const legacy = defaultStateFile(env, o.relayUrl, 'dev');
    writeStateFile(legacy, { lastSeq: 4, retrying: [] });
    const state = forwardState(o);
    assert.equal(state.path, legacy);
    assert.deepEqual(state.store.load(), { lastSeq: 4, retrying: [] });
    await state.store.save({ lastSeq: 5, retrying: [] });
    assert.deepEqual(readStateFile(legacy), { lastSeq: 5, retrying: [] });
    // The same relay once it names the scope: its own file, taking the old one over, and saying so:
    // whichever token wrote a file for --channel dev read dev's deliveries, as this one does.
    const named = forwardState({ ...o, scope: { kind: 'channel', channel: 'dev', generation: 'g1' } });
    assert.notEqual(named.path, legacy);
    assert.equal(named.adopted, legacy);
    assert.deepEqual(named.store.load(), { lastSeq: 5, retrying: [] });
    await named.store.save({ lastSeq: 6, retrying: [] });
    assert.deepEqual(readStateFile(named.path), { scope: 'channel dev@g1', lastSeq: 6, retrying: [] });
    // Without --channel, an older version's file may be another token's: refused until --since.
    const all = defaultStateFile(env, o.relayUrl, undefined);
    writeStateFile(all, { lastSeq: 9, retrying: [] });
    assert.throws(
      () => forwardState({ ...o, channel: undefined, scope: { kind: 'admin' } }),
      new RegExp(`${all} was written by an older service-hooks .*--since 9`),
    );
  });

  it("keyed by the relay's identity and scope: every address of one relay shares the file; another relay has its own", () => {
    const env = { HOME: '/home/dev' };
    const admin = { kind: 'admin' as const };
    const one = relayStateFile(env, 'jetstream:c1/SH_DELIVERIES@2026-11-27T10:00:00Z', admin, undefined);
    assert.match(one, /^\/home\/dev\/\.local\/state\/service-hooks\/forward\/relay-[0-9a-f]{8}-all-[0-9a-f]{12}\.json$/);
    const a = forwardState({ env, cwd: '/', relayUrl: 'ws://relay-a:8788', scope: admin, relay: 'jetstream:c1/SH_DELIVERIES@2026-11-27T10:00:00Z' });
    const b = forwardState({ env, cwd: '/', relayUrl: 'wss://balancer.example', scope: admin, relay: 'jetstream:c1/SH_DELIVERIES@2026-11-27T10:00:00Z' });
    assert.equal(a.path, one);
    assert.equal(b.path, one, 'another address of the same relay: the same file');
    assert.notEqual(relayStateFile(env, 'jetstream:c1/SH_DELIVERIES@2026-11-28T10:00:00Z', admin, undefined), one, 'a stream created again: another relay');
    assert.notEqual(relayStateFile(env, 'jetstream:c1/SH_DELIVERIES@2026-11-27T10:00:00Z', admin, 'dev'), one, 'another scope');
  });

  it("an older version's file of the address connected to is taken over (moved to the identity's name); one of another address is refused", async () => {
    const env = { XDG_STATE_HOME: tempDir() };
    const relay = 'file:0b7e0c1c-4f4e-4a52-9d0e-6d2b8a0f1f00';
    const admin = { kind: 'admin' as const };
    const old = scopedStateFile(env, 'ws://127.0.0.1:8788', admin, undefined);
    writeStateFile(old, { scope: 'admin', lastSeq: 41, retrying: [{ seq: 40, channel: 'dev', attempts: 1, nextAt: 1 }] });
    const o = { env, cwd: '/', scope: admin, relay };
    // Connected to another address of the list first: whether 8788 is this relay is not known.
    assert.throws(() => forwardState({ ...o, relayUrl: 'ws://127.0.0.1:8789', others: ['ws://127.0.0.1:8788'] }), {
      message: `the forward state ${old} was kept by an older service-hooks for ws://127.0.0.1:8788 (it resumes after seq 41), and forward connected to ws://127.0.0.1:8789: whether they are one relay is known only from ws://127.0.0.1:8788's own answer, so it is not taken over: put ws://127.0.0.1:8788 first in --relay (its file is taken over once its relay names itself), or pass --since 41, or delete it`,
    });
    assert.equal(
      forwardState({ ...o, relayUrl: 'ws://127.0.0.1:8789', others: ['ws://127.0.0.1:8788'], since: 0 }).store.load(),
      undefined,
      '--since: nothing of it',
    );
    const taken = forwardState({ ...o, relayUrl: 'ws://127.0.0.1:8788', others: ['ws://127.0.0.1:8789'] });
    assert.equal(taken.migrated, old);
    assert.equal(taken.path, relayStateFile(env, relay, admin, undefined));
    assert.deepEqual(taken.store.load(), { lastSeq: 41, retrying: [{ seq: 40, channel: 'dev', attempts: 1, nextAt: 1 }] });
    await taken.store.save({ lastSeq: 42, retrying: [] });
    assert.deepEqual(readStateFile(taken.path), { scope: 'admin', lastSeq: 42, retrying: [], relay });
    assert.equal(existsSync(old), false, 'the older file is gone once its content is in the new one');
    assert.deepEqual(forwardState({ ...o, relayUrl: 'ws://127.0.0.1:8789' }).store.load(), { lastSeq: 42, retrying: [] }, 'at the other address now');
  });

  it('--state FILE written for another relay is refused naming both, unless --since starts over in it', () => {
    const dir = tempDir();
    const file = join(dir, 's.json');
    writeStateFile(file, { scope: 'admin', lastSeq: 9, retrying: [], relay: 'file:one' });
    const o = { env: {}, cwd: dir, file: 's.json', relayUrl: 'ws://127.0.0.1:1', scope: { kind: 'admin' as const }, relay: 'file:two' };
    assert.throws(() => forwardState(o), {
      message: `the forward state ${file} was written for relay file:one, and the relay at ws://127.0.0.1:1 is file:two: another store, where its resume point (seq 9) means nothing; pass another --state FILE, or --since SEQ to start over in it, or delete it`,
    });
    assert.deepEqual(forwardState({ ...o, since: 0 }).store.load(), { retrying: [] });
    assert.deepEqual(forwardState({ ...o, relay: 'file:one' }).store.load(), { lastSeq: 9, retrying: [] });
  });

  it('a seq that is no non-negative safe integer makes the file damaged', () => {
    const file = join(tempDir(), 'f.json');
    for (const lastSeq of ['1e300', '2.5', '-1', '"7"']) {
      writeFileSync(file, `{"lastSeq": ${lastSeq}, "retrying": []}`);
      assert.throws(() => readStateFile(file), /unexpected content/, lastSeq);
    }
  });
});
