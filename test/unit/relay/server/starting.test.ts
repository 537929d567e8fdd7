// The relay listens before its store has loaded what it holds (issue 24: a journal of a million
// deliveries takes a second or more to index): meanwhile /healthz answers 200 (alive, starting),
// /readyz 503, a delivery 503 with Retry-After (nothing is accepted before the journal is open, so
// seqs stay in order), the API 503, a WebSocket upgrade 503. The journal's open is held here by a
// file system whose directory listing waits for the test.
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import WebSocket from 'ws';
import { WS_PATH } from '../../../../src/core/relay/protocol';
import { startRelay, STARTING_ERROR, type RelayServer } from '../../../../relay/server';
import { nodeFs, type JournalFs } from '../../../../relay/server/journal/journalFs';
import { post, tempDir } from '../support/helpers';

/** node:fs, but the first readdir (the journal's open) waits until release(). */
function heldFs(): { fs: JournalFs; release: () => void; reached: Promise<void> } {
  let release!: () => void;
  let reach!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (reach = r));
  let first = true;
  const fs: JournalFs = {
    ...nodeFs,
    readdir: async (dir: string) => {
      if (first) {
        first = false;
        reach();
        await held;
      }
      return nodeFs.readdir(dir);
    },
  };
  return { fs, release, reached };
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown>; retryAfter: unknown }> {
  const res = await request(url, { headers });
  return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown>, retryAfter: res.headers['retry-after'] };
}

describe('relay start-up: listening while the journal loads', function () {
  this.timeout(30_000);
  let relay: RelayServer | undefined;
  afterEach(async () => {
    await relay?.close().catch(() => undefined);
    relay = undefined;
  });

  it('answers /healthz 200, everything else 503 until the store is open; then accepts in order', async () => {
    const dataDir = tempDir();
    // A first run leaves a delivery in the journal.
    const first = await startRelay({ port: 0, dataDir });
    assert.equal((await post(`${first.url}/hooks/default`, '{"n":1}')).status, 200);
    await first.close();

    const held = heldFs();
    let port = 0;
    const started = startRelay({ port: 0, dataDir, journalFs: held.fs, onListening: (p) => (port = p) });
    await held.reached;
    assert.ok(port > 0, 'listening before the journal is read');
    const base = `http://127.0.0.1:${port}`;
    assert.deepEqual((await get(`${base}/healthz`)).json, { ok: true, starting: true });
    const ready = await get(`${base}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(ready.json.error, STARTING_ERROR);
    const hook = await post(`${base}/hooks/default`, '{"n":2}');
    assert.equal(hook.status, 503);
    const status = await get(`${base}/api/status`);
    assert.equal(status.status, 503);
    assert.equal(status.retryAfter, '1');
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, { headers: { authorization: 'Bearer whatever' } });
      ws.on('unexpected-response', (req, res) => {
        res.resume();
        req.destroy();
        resolve(res.statusCode!);
      });
      ws.on('open', () => reject(new Error('a subscriber connected before the store was open')));
      ws.on('error', () => undefined);
    });
    assert.equal(refused, 503, 'no subscriber before the store is open');

    held.release();
    relay = await started;
    assert.equal(relay.port, port);
    assert.deepEqual((await get(`${relay.url}/readyz`)).json, { ready: true });
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":3}')).status, 200);
    const list = await get(`${relay.url}/api/deliveries`, { authorization: `Bearer ${relay.token}` });
    const seqs = (list.json.deliveries as { seq: number }[]).map((d) => d.seq);
    assert.deepEqual(seqs, [2, 1], 'the refused delivery took no seq; the new one follows the journal');
  });
});
