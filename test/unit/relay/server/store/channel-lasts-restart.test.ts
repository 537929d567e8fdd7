// A channel token's lastSeq survives a prune that took its channel's deliveries and a restart of
// the relay process, whichever way the file store is opened (the relay opens it for appends
// before its index is built): the seq kept in channel-lasts.json answers, not 0.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { post, relayProcesses, signed, spawnRelay, tempDir } from '../../support/helpers';
import { call } from '../../support/publicHelpers';

const SECRET = 'channel-lasts-secret-0123456789';
const ADMIN = 'channel-lasts-admin-token-0123456789';

describe("a channel token's lastSeq after a prune and a restart (relay process, file store)", function () {
  this.timeout(60_000);
  const procs = relayProcesses();

  it("is the pruned delivery's seq on the API and the stream, after prune keep 0 and a restart", async () => {
    const data = join(tempDir(), 'data');
    const env = { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN };
    const first = await spawnRelay(['--data', data], env);
    procs.push(first);
    const alice = (await call('POST', `${first.url}/api/channels`, ADMIN, { name: 'alice', secrets: [SECRET] })).json.token as string;
    const body = '{"n":1}';
    const seq = ((await post(`${first.url}/hooks/alice`, body, signed(SECRET, body))).json as { seq: number }).seq;
    assert.equal((await call('POST', `${first.url}/api/prune`, ADMIN, { keep: 0 })).status, 200);
    await first.stop('SIGTERM');

    const second = await spawnRelay(['--data', data], env);
    procs.push(second);
    const status = await call('GET', `${second.url}/api/status`, alice);
    assert.equal(status.status, 200);
    assert.equal(status.json.lastSeq, seq, 'the channel token is told its last seq, kept across the restart');
    assert.equal((await call('GET', `${second.url}/api/deliveries`, alice)).json.lastSeq, seq);
  });
});
