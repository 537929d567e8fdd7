// /healthz (liveness) and /readyz (readiness) tell the truth with a reason (issue 20 item 8): a
// failed journal write makes the relay not ready until a write succeeds; a journal that refuses
// every write fails liveness too; each is logged once, loudly. A damaged seq file is logged and
// shown in /api/status. On JetStream, /readyz answers 503 while NATS is unreachable.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { FaultyFs } from '../support/faultyFs';
import { post, relayProcesses, spawnRelay, tempDir } from '../support/helpers';
import { call } from '../support/publicHelpers';
import { startNats, type NatsCluster } from '../../nats/natsServers';

async function get(url: string): Promise<{ status: number; json: { ok?: boolean; ready?: boolean; error?: string; lastSeq?: number } }> {
  const res = await request(url);
  return { status: res.statusCode, json: (await res.body.json()) as { ok?: boolean; ready?: boolean; error?: string } };
}

describe('relay health: /healthz and /readyz', function () {
  this.timeout(60_000);
  let relay: RelayServer | undefined;
  afterEach(async () => {
    await relay?.close().catch(() => undefined);
    relay = undefined;
  });

  it('a failed write: /readyz 503 with the reason until a write succeeds; /healthz stays 200', async () => {
    const fs = new FaultyFs();
    const lines: string[] = [];
    relay = await startRelay({ port: 0, dataDir: tempDir(), journalFs: fs, log: (l) => lines.push(l) });
    assert.deepEqual((await get(`${relay.url}/readyz`)).json, { ready: true });
    fs.fail('writev', { code: 'ENOSPC', partialBytes: 10, times: 1 });
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 500);
    const ready = await get(`${relay.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(ready.json.error!, /ENOSPC/);
    assert.equal((await get(`${relay.url}/healthz`)).status, 200, 'alive: the next write may work');
    assert.ok(
      lines.some((l) => /journal: ERROR: a write failed \(the disk of .* is full\)/.test(l)),
      lines.join('\n'),
    );
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":2}')).status, 200);
    assert.equal((await get(`${relay.url}/readyz`)).status, 200);
    assert.ok(lines.some((l) => /writes work again/.test(l)));
  });

  it('a journal that refuses every write (read-only data folder): 503 on POST, /healthz and /readyz, logged once', async () => {
    const fs = new FaultyFs();
    const lines: string[] = [];
    relay = await startRelay({ port: 0, dataDir: tempDir(), journalFs: fs, log: (l) => lines.push(l) });
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
    fs.fail('writev', { code: 'EROFS', partialBytes: 10 });
    fs.fail('truncate', { code: 'EROFS' });
    fs.fail('open', { code: 'EROFS', mode: 'append' });
    assert.notEqual((await post(`${relay.url}/hooks/default`, '{"n":2}')).status, 200);
    for (let i = 3; i < 6; i++) assert.equal((await post(`${relay.url}/hooks/default`, `{"n":${i}}`)).status, 503);
    const live = await get(`${relay.url}/healthz`);
    assert.equal(live.status, 503);
    assert.match(live.json.error!, /journal refuses appends.*EROFS/);
    const ready = await get(`${relay.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(ready.json.error!, /EROFS/);
    const fatal = lines.filter((l) => /journal: ERROR: .*not writable.*until the relay is restarted/.test(l));
    assert.equal(fatal.length, 1, lines.join('\n'));
  });

  it('a damaged seq file is logged and shown in /api/status', async () => {
    const dataDir = tempDir();
    relay = await startRelay({ port: 0, dataDir });
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
    await relay.close();
    writeFileSync(join(dataDir, 'seq'), Buffer.alloc(16, 0xab));
    const lines: string[] = [];
    relay = await startRelay({ port: 0, dataDir, log: (l) => lines.push(l) });
    assert.ok(
      lines.some((l) => /seq file .* is damaged; numbering resumes after the journal's last seq 1/.test(l)),
      lines.join('\n'),
    );
    const status = await call('GET', `${relay.url}/api/status`, relay.token);
    assert.equal(status.json.journal.seqFileDamaged, true);
    assert.equal(((await post(`${relay.url}/hooks/default`, '{"n":2}')).json as { seq: number }).seq, 2);
  });

  describe('JetStream', () => {
    let nats: NatsCluster;
    const procs = relayProcesses();
    before(async () => (nats = await startNats(1)));
    after(async () => nats?.stop());

    it('/readyz is 503 while NATS is unreachable, and 200 again once it is back; /healthz stays 200', async () => {
      const relay = await spawnRelay(['--store', nats.urls, '--data', tempDir()]);
      procs.push(relay);
      assert.equal((await get(`${relay.url}/readyz`)).status, 200);
      await nats.nodes[0]!.kill();
      await relay.saw(/lost the connection to NATS/);
      const ready = await get(`${relay.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.match(ready.json.error!, /NATS/);
      assert.equal((await get(`${relay.url}/healthz`)).status, 200);
      await nats.nodes[0]!.start();
      await relay.saw(/connected to NATS again/);
      assert.equal((await get(`${relay.url}/readyz`)).status, 200);
    });
  });
});
