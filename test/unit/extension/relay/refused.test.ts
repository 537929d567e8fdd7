// A token the relay no longer takes (revoked, or its channel deleted) stops the editor's connection
// with the status instead of reconnecting ("Connecting…") forever; the token's scope is read from
// the relay; a second extension host taking the forwarding lease stops the first.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import * as client from '../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { RelayConnection, tokenScope } from '../../../../src/extension/relay/connection';
import { ForwardLease } from '../../../../src/extension/relay/lease';
import { tempDir } from '../../relay/support/helpers';

describe('editor relay connection: a refused token', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  before(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: ['refused-test-secret-0123456789'], forward: [] });
  });
  after(() => relay.close());

  const base = () => `http://127.0.0.1:${relay.port}`;
  const admin = () => new client.RelayApi({ baseUrl: base(), token: relay.token });

  it('the scope of a token: admin, or its channel by name', async () => {
    assert.deepEqual(await tokenScope(admin()), { kind: 'admin' });
    const created = await admin().createChannel({ name: 'scope-a', secrets: ['scope-secret-0123456789abcdef'] });
    assert.deepEqual(await tokenScope(new client.RelayApi({ baseUrl: base(), token: created.token })), { kind: 'channel', channel: 'scope-a' });
  });

  it('a deleted channel: the subscription ends with 401 and the state is closed, not reconnecting', async () => {
    const created = await admin().createChannel({ name: 'gone', secrets: ['gone-secret-0123456789abcdef'] });
    const conn = new RelayConnection({
      endpoint: { httpUrl: base(), wsUrl: `ws://127.0.0.1:${relay.port}/ws`, token: created.token, label: 'test' },
      client,
      handle: async () => undefined,
      coalesceMs: 10,
    });
    await conn.open();
    assert.equal(conn.state, 'running');
    const closed = new Promise<void>((resolve) => conn.onDidChange(() => conn.state === 'closed' && resolve()));
    await admin().deleteChannel('gone');
    await closed;
    assert.ok(conn.refused === 401 || conn.refused === 403, `refused ${conn.refused}`);
    assert.match(String(conn.detail), /refused the token \(HTTP 40[13]\)/);
    await conn.close();
  });
});

describe('the forwarding lease', () => {
  it('the host that took it last holds it; the other sees that it lost it', () => {
    const file = join(tempDir(), 'forward-owner.json');
    const first = new ForwardLease(file);
    const second = new ForwardLease(file);
    assert.equal(first.held(), true, 'nobody took it yet');
    first.take();
    assert.equal(first.held(), true);
    assert.equal(second.held(), false);
    second.take();
    assert.equal(first.held(), false, 'the old host (before Reload Window) stops');
    assert.equal(second.held(), true);
  });
});
