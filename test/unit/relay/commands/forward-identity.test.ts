// Issue 42 item 5: a relay names its identity in the hello (the file store's: an id created once
// in its data folder), and `forward` with several --relay addresses refuses to go on at one that
// names another identity (another store: the resume point means nothing there), or none.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { RelayApi, subscribe } from '../../../../relay/client';
import { RELAY_ID_FILE } from '../../../../relay/server/store/storeIdentity';
import { post, startTarget, tempDir, within } from '../support/helpers';
import { readStateFile, relayStateFile, scopedStateFile, writeStateFile } from '../../../../relay/cli/forwardState';
import { runCli } from '../support/publicHelpers';
import { bare, forwarder, processesPerTest } from '../support/forwarderProcess';

/** The identity the relay's hello names. */
function identityOf(relay: RelayServer): Promise<string | undefined> {
  return new Promise((resolve) => {
    const sub = subscribe({
      url: `ws://127.0.0.1:${relay.port}`,
      token: relay.token,
      onDelivery: () => undefined,
      onState: (s) => s.state === 'open' && (sub.close(), resolve(s.relay)),
    });
  });
}

describe('the relay identity in the hello, and forward over several addresses', function () {
  this.timeout(60_000);
  const relays: RelayServer[] = [];
  const { children, apps } = processesPerTest();
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.close().catch(() => undefined);
  });
  const start = async (dataDir = tempDir(), port = 0) => {
    // One admin token for all: two relays that refused each other's token would stop forward before any hello.
    const r = await startRelay({ port, dataDir, forward: [], token: 'identity-test-admin-token-0123456789' });
    relays.push(r);
    return r;
  };

  it('the file store: an id kept in the data folder, the same after a restart, another for another folder', async () => {
    const data = tempDir();
    const first = await start(data);
    const id = await identityOf(first);
    assert.equal(id, `file:${readFileSync(join(data, RELAY_ID_FILE), 'utf8').trim()}`);
    assert.match(id!, /^file:[0-9a-f-]{36}$/);
    await first.close();
    relays.splice(relays.indexOf(first), 1);
    assert.equal(await identityOf(await start(data)), id, 'the same relay after a restart');
    assert.notEqual(await identityOf(await start()), id, 'another data folder, another relay');
  });

  it('the connected relay gone, the next address names another identity: forward exits 1 naming both', async () => {
    const [one, two] = [await start(), await start()];
    const app = await startTarget();
    apps.push(app);
    const f = await forwarder(
      ['--relay', `ws://127.0.0.1:${one.port}`, '--relay', `ws://127.0.0.1:${two.port}`, '--token', one.token, '--to', app.url, '--output', 'text'],
      { XDG_STATE_HOME: tempDir() },
    );
    children.push(f.child);
    await f.saw(/connected/);
    const [idOne, idTwo] = [await identityOf(one), await identityOf(two)];
    await one.close();
    assert.equal(await within(f.exited, 30_000, f.out), 1, f.out());
    const said = f.stderr().trim().split('\n').at(-1)!;
    assert.ok(said.includes(`the relay at ws://127.0.0.1:${two.port} is ${idTwo}, not ${idOne} as the relay at ws://127.0.0.1:${one.port} said`), said);
  });

  it('every address down: the first to answer again is taken, from the same resume point', async () => {
    const data = tempDir();
    const relay = await start(data);
    const { port } = relay;
    const app = await startTarget();
    apps.push(app);
    // Two addresses of one relay (127.0.0.1 and localhost): both go down with it.
    const f = await forwarder(['--relay', `ws://127.0.0.1:${port},ws://localhost:${port}`, '--token', relay.token, '--to', app.url, '--output', 'text'], {
      XDG_STATE_HOME: tempDir(),
    });
    children.push(f.child);
    await f.saw(/connected/);
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
    await within(app.waitFor(1), 30_000, f.out);
    await relay.close();
    relays.splice(relays.indexOf(relay), 1);
    await f.saw(/reconnecting in \d+ ms, or once a relay's port answers again/);
    const back = await start(data, port);
    assert.equal((await post(`${back.url}/hooks/default`, '{"n":2}')).status, 200);
    await within(app.waitFor(2), 30_000, f.out);
    assert.deepEqual(
      app.received.map((r) => r.body.toString()),
      ['{"n":1}', '{"n":2}'],
    );
  });

  it('one address whose relay is replaced (another data folder): forward exits 1 saying so', async () => {
    const relay = await start();
    const { port } = relay;
    const app = await startTarget();
    apps.push(app);
    const f = await forwarder(['--relay', `ws://127.0.0.1:${port}`, '--token', relay.token, '--to', app.url, '--output', 'text'], {
      XDG_STATE_HOME: tempDir(),
    });
    children.push(f.child);
    await f.saw(/connected/);
    const was = await identityOf(relay);
    await relay.close();
    relays.splice(relays.indexOf(relay), 1);
    const other = await start(tempDir(), port);
    assert.equal(await within(f.exited, 30_000, f.out), 1, f.out());
    assert.ok(f.stderr().includes(`the relay at ws://127.0.0.1:${port} is ${await identityOf(other)} now, not ${was}: its store was replaced`), f.stderr());
  });

  it('several addresses of a relay too old to name its identity: refused, one address is the way', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    wss.on('connection', (ws) => ws.send(JSON.stringify({ type: 'hello', lastSeq: 0, since: 0, scope: { kind: 'admin' } })));
    const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
    try {
      const r = await runCli(
        [
          'forward',
          '--relay',
          `${url},${url.replace('127.0.0.1', 'localhost')}`,
          '--token',
          'old-relay-token',
          '--to',
          'http://127.0.0.1:9/x',
          '--output',
          'text',
        ],
        {
          XDG_STATE_HOME: tempDir(),
        },
      );
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        /the relay at ws:\/\/127\.0\.0\.1:\d+ does not name its identity \(it predates it\): several --relay addresses need relays that do; give one address/,
      );
    } finally {
      wss.close();
    }
  });

  it("an older version's state file for the address is taken over: it resumes where that one was, posting nothing again", async () => {
    const relay = await start();
    for (const n of [1, 2, 3]) assert.equal((await post(`${relay.url}/hooks/default`, `{"n":${n}}`)).status, 200);
    const env = { XDG_STATE_HOME: tempDir() };
    const address = `ws://127.0.0.1:${relay.port}`;
    const old = scopedStateFile(env, address, { kind: 'admin' }, undefined);
    writeStateFile(old, { scope: 'admin', lastSeq: 2, retrying: [] });
    const app = await startTarget();
    apps.push(app);
    const f = await forwarder(['--relay', address, '--token', relay.token, '--to', app.url, '--output', 'text'], env);
    children.push(f.child);
    await within(app.waitFor(1), 30_000, f.out);
    await f.saw(/#3 default - → 200/);
    const id = await identityOf(relay);
    const now = relayStateFile(env, id!, { kind: 'admin' }, undefined);
    assert.ok(
      bare(f.stderr()).includes(
        `forward: every channel: taking over ${old}, an older version's state kept for ${address}, whose relay is ${id}; now in ${now}`,
      ),
      f.stderr(),
    );
    f.child.kill('SIGTERM');
    assert.equal(await f.exited, 0, f.out());
    assert.deepEqual(
      app.received.map((r) => r.body.toString()),
      ['{"n":3}'],
    );
    assert.deepEqual(readStateFile(now), { scope: 'admin', lastSeq: 3, retrying: [], relay: id });
    assert.equal(existsSync(old), false);
  });

  it("--channel '*' asks the addresses in order for the channels: a dead first one is passed over", async () => {
    const relay = await start();
    await new RelayApi({ baseUrl: relay.url, token: relay.token }).createChannel({ name: 'listed', secrets: ['listed-secret-0123456789'] });
    const gone = await start();
    const dead = `ws://127.0.0.1:${gone.port}`;
    await gone.close();
    relays.splice(relays.indexOf(gone), 1);
    const app = await startTarget();
    apps.push(app);
    const f = await forwarder(
      ['--relay', `${dead},ws://127.0.0.1:${relay.port}`, '--token', relay.token, '--to', app.url, '--channel', '*', '--output', 'text'],
      {
        XDG_STATE_HOME: tempDir(),
      },
    );
    children.push(f.child);
    await within(f.saw(/forward: channel listed: connected/), 30_000, f.out);
  });

  it('--relay: repeatable and a comma list; a bad address or one named twice is a usage error naming the flag', async () => {
    const bad = await runCli(['forward', '--relay', 'ws://127.0.0.1:1,nope', '--token', 't', '--to', 'http://127.0.0.1:9/']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--relay must be a ws\(s\):\/\/ or http\(s\):\/\/ URL, got 'nope' \(several: repeat --relay, or separate them with commas\)/);
    const twice = await runCli(['forward', '--relay', 'ws://127.0.0.1:1', '--relay', 'http://127.0.0.1:1/ws', '--token', 't', '--to', 'http://127.0.0.1:9/']);
    assert.equal(twice.code, 2, twice.stderr);
    assert.match(twice.stderr, /--relay names ws:\/\/127\.0\.0\.1:1 twice/);
  });
});
