// Regression tests: bad or reset WebSocket upgrade requests never crash the relay.
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { relayPerTest } from '../support/helpers';

/** Sends a raw upgrade request and resolves with the status line the relay answered (or '' if none). */
function rawUpgrade(port: number, target: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`));
    let got = '';
    s.on('data', (c: Buffer) => (got += c.toString()));
    s.on('close', () => resolve(got.split('\r\n')[0]!));
    s.on('error', () => resolve(got.split('\r\n')[0]!));
  });
}

/** Sends an upgrade request and resets the connection at once (RST). */
function resetUpgrade(port: number, target: string): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`, () => {
        s.resetAndDestroy();
      });
    });
    s.on('close', () => resolve());
    s.on('error', () => undefined);
  });
}

describe('relay upgrade robustness', function () {
  this.timeout(60_000);
  const relay = relayPerTest();

  it('answers 400 to an upgrade whose target is not a URL path, and keeps serving', async () => {
    assert.equal(await rawUpgrade(relay().port, '//'), 'HTTP/1.1 400 Bad Request');
    assert.equal(await rawUpgrade(relay().port, 'http://['), 'HTTP/1.1 400 Bad Request');
    assert.equal(await rawUpgrade(relay().port, '/nope'), 'HTTP/1.1 404 Not Found');
    assert.equal(await rawUpgrade(relay().port, '/ws'), 'HTTP/1.1 401 Unauthorized');
    assert.equal((await fetch(`${relay().url}/healthz`)).status, 200);
  });

  it('survives upgrade requests followed by a TCP reset (refused path and unauthorized /ws)', async () => {
    const errors: Error[] = [];
    const onErr = (e: Error) => errors.push(e);
    process.on('uncaughtException', onErr);
    try {
      for (let i = 0; i < 100; i++) {
        await resetUpgrade(relay().port, '/nope');
        await resetUpgrade(relay().port, '/ws');
      }
      // One more full round trip on a fresh connection: the server has handled the resets by now.
      assert.equal(await rawUpgrade(relay().port, '/nope'), 'HTTP/1.1 404 Not Found');
      assert.equal((await fetch(`${relay().url}/healthz`)).status, 200);
    } finally {
      process.off('uncaughtException', onErr);
    }
    assert.deepEqual(
      errors.map((e) => e.message),
      [],
    );
  });
});
