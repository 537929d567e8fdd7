// Regression test: a delivery sent with `Expect: 100-continue` (curl does for big bodies) is forwarded,
// without the Expect header or headers the Connection header lists.
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { startRelay } from '../../../../../relay/server';
import { startTarget, tempDir } from '../../support/helpers';

describe('relay Expect: 100-continue', function () {
  this.timeout(60_000);
  it('forwards the delivery without Expect and without Connection-listed headers', async () => {
    const target = await startTarget();
    const relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [target.url] });
    try {
      const body = '{"big":true}';
      const answer = await new Promise<string>((resolve) => {
        const s = connect(relay.port, '127.0.0.1', () =>
          s.write(
            `POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
              `Expect: 100-continue\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\nX-Keep: 2\r\n\r\n`,
          ),
        );
        let got = '';
        let sent = false;
        s.on('data', (c: Buffer) => {
          got += c.toString();
          if (!sent && got.startsWith('HTTP/1.1 100')) {
            sent = true;
            s.write(body); // the relay closes the connection after its answer (Connection: close)
          }
        });
        s.on('close', () => resolve(got));
      });
      assert.match(answer, /HTTP\/1\.1 200/);
      await target.waitFor(1);
      const r = target.received[0]!;
      assert.equal(r.body.toString(), body);
      assert.equal(r.headers['expect'], undefined);
      assert.equal(r.headers['x-hop'], undefined);
      assert.equal(r.headers['x-keep'], '2');
    } finally {
      await relay.close();
      await target.close();
    }
  });
});
