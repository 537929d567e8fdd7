// Pins issue 42 item 7's graceful stop: once a relay process is told to stop, a new post on a
// connection it still serves is refused at once with 503 and Retry-After (the service, or a load
// balancer, sends it elsewhere or later), while the post already in flight is still stored.
import { strict as assert } from 'node:assert';
import { connect, type Socket } from 'node:net';
import { spawnRelay, tempDir, within } from '../support/helpers';

/** Everything the socket received so far, and a wait until it matches `re` (bounded by the caller). */
function reader(socket: Socket): { text: () => string; until: (re: RegExp) => Promise<string> } {
  let text = '';
  const waiters: (() => void)[] = [];
  socket.on('data', (c: Buffer) => ((text += c.toString('latin1')), waiters.forEach((w) => w())));
  return {
    text: () => text,
    until: (re) =>
      new Promise((resolve) => {
        const check = () => re.test(text) && resolve(text);
        waiters.push(check);
        check();
      }),
  };
}

describe('a relay told to stop (real process, SIGTERM)', function () {
  this.timeout(60_000);

  it('answers a new post 503 with Retry-After at once, and stores the one in flight', async () => {
    const relay = await spawnRelay(['--data', tempDir()]);
    try {
      const socket = connect(relay.port, '127.0.0.1');
      const got = reader(socket);
      const host = `127.0.0.1:${relay.port}`;
      const body = '{"in":"flight"}';
      // Expect: 100-continue: the "100 Continue" says the relay has the request in hand.
      socket.write(
        `POST /hooks/default HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      await within(got.until(/HTTP\/1\.1 100 Continue/), 10_000, () => `no 100 Continue: ${got.text()}`);
      const stopping = relay.saw(/stopping \(pending forwards stay in the journal\)/, { in: 'stderr' });
      relay.child.kill('SIGTERM');
      await within(stopping, 10_000, () => `the relay never said it is stopping:\n${relay.stderr()}`);
      const late = '{"new":"post"}';
      socket.write(body + `POST /hooks/default HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${late.length}\r\n\r\n${late}`);
      const text = await within(got.until(/HTTP\/1\.1 200[\s\S]*HTTP\/1\.1 503[\s\S]*relay is stopping/), 10_000, () => `answers so far:\n${got.text()}`);
      const second = text.slice(text.indexOf('HTTP/1.1 503'));
      assert.match(second, /\r\nretry-after: 5\r\n/i, 'the 503 says when to try again');
      assert.match(text, /"seq":1/, 'the post in flight was stored');
      socket.destroy();
      assert.equal(await within(relay.exited, 20_000, () => `the relay did not exit:\n${relay.stderr()}`), 0);
    } finally {
      await relay.stop('SIGKILL');
    }
  });
});
