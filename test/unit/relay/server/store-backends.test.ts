// Choosing the store by the `--store` URL (relay/server/storeBackends.ts): one table of schemes,
// a usage error (exit 2) for a URL no backend takes, and a relay on the in-memory log.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { request } from 'undici';
import { startRelay } from '../../../../relay/server';
import { storeBackend, StoreUrlError } from '../../../../relay/server/storeBackends';
import { cli, post, spawnRelay, tempDir, type RelayProcess } from '../support/helpers';

function runRelay(args: string[]): Promise<{ code: number; stderr: string }> {
  return cli().then(
    (path) =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [path, 'relay', '--port', '0', '--data', tempDir(), ...args],
          { env: { PATH: process.env.PATH, HOME: tempDir('sh-home-') } },
          (err, _out, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
        );
      }),
  );
}

describe('relay --store: the backend from the URL', () => {
  const procs: RelayProcess[] = [];
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop();
  });

  it('maps each scheme to its backend; the default and `file` are the file journal', () => {
    const kind = (url: string | undefined) => storeBackend(url).kind;
    assert.deepEqual([undefined, 'file', 'file:', 'FILE:'].map(kind), ['file', 'file', 'file', 'file']);
    assert.deepEqual(['nats://127.0.0.1:4222', 'nats://a:1,nats://b:2', 'tls://nats.example:4222'].map(kind), ['jetstream', 'jetstream', 'jetstream']);
    assert.equal(kind('memory:'), 'memory');
    for (const bad of ['bogus:', 'http://127.0.0.1:4222', 'relay-data', ''])
      assert.throws(
        () => storeBackend(bad),
        (err) => err instanceof StoreUrlError && /names no store; use file:.*nats:\/\/.*memory:/.test(err.message),
        bad,
      );
    assert.throws(() => storeBackend('nats://'), StoreUrlError, 'a NATS URL without a host');
  });

  it('a --store no backend takes, or NATS options without NATS, is a usage error (exit 2)', async () => {
    const bogus = await runRelay(['--store', 'bogus:']);
    assert.equal(bogus.code, 2);
    assert.match(bogus.stderr, /--store: 'bogus:' names no store/);
    const creds = await runRelay(['--store', 'memory:', '--nats-replicas', '3']);
    assert.equal(creds.code, 2);
    assert.match(creds.stderr, /--nats-creds and --nats-replicas go with --store nats:\/\//);
  });

  it('--store memory: a relay process that stores, lists and serves deliveries without a journal', async () => {
    const data = tempDir();
    const relay = await spawnRelay(['--store', 'memory:', '--data', data]);
    procs.push(relay);
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
    const token = readFileSync(relay.ready.tokenFile!, 'utf8').trim();
    const res = await request(`${relay.url}/api/deliveries`, { headers: { authorization: `Bearer ${token}` } });
    const list = (await res.body.json()) as { deliveries: { seq: number }[] };
    assert.deepEqual(
      list.deliveries.map((d) => d.seq),
      [1],
    );
    assert.deepEqual(
      readdirSync(data).filter((f) => /^journal-|^seq$/.test(f)),
      [],
      'no journal in the data folder',
    );
  });

  it('startRelay({ store: { url: "memory:" } }) in process', async () => {
    const relay = await startRelay({ port: 0, dataDir: tempDir(), store: { url: 'memory:' } });
    try {
      assert.equal((await post(`${relay.url}/hooks/default`, 'x')).status, 200);
      assert.equal(relay.store.size, 1);
    } finally {
      await relay.close();
    }
  });
});
