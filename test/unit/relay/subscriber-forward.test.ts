// A delivery that a `service-hooks forward` subscriber forwarded and acknowledged shows as
// forwarded (issue 10.8): the relay records the app's status under SUBSCRIBER_TARGET and
// `service-hooks deliveries` prints it instead of "forward: no target". Real processes.
import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import { SUBSCRIBER_TARGET } from '../../../src/core/relay/protocol';
import { startRelay, type RelayServer } from '../../../relay/server';
import { cli, post, startTarget, tempDir, until, type TargetApp } from './helpers';

function deliveriesCli(relay: RelayServer): Promise<string> {
  return cli().then(
    (path) =>
      new Promise((resolve, reject) => {
        execFile(process.execPath, [path, 'deliveries', '--relay', relay.url, '--token', relay.token], (err, stdout) => (err ? reject(err) : resolve(stdout)));
      }),
  );
}

describe('relay: deliveries a forward subscriber acknowledged', function () {
  this.timeout(60_000);
  let relay: RelayServer;
  let target: TargetApp;
  afterEach(async () => {
    await relay.close();
    await target.close();
  });

  it('records the app status under the subscriber target and prints it', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir() });
    target = await startTarget();
    target.status = 202;
    const child = spawn(process.execPath, [await cli(), 'forward', '--relay', `ws://127.0.0.1:${relay.port}`, '--token', relay.token, '--to', target.url, '--since', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      assert.equal((await post(`${relay.url}/hooks/default`, '{"a":1}', { 'x-service-event': 'push' })).status, 200);
      await target.waitFor(1);
      await until(
        () => (relay.store.get(1)!.summary.forward.length > 0 ? true : undefined),
        (wake) => (relay.store.on('forward', wake), () => relay.store.off('forward', wake)),
      );
      assert.deepEqual(relay.store.get(1)!.summary.forward, [{ target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 202, attempts: 1 }]);
      const out = await deliveriesCli(relay);
      assert.match(out, /#1 .* forward: ok 202 \(by a forward subscriber\)/);
      assert.doesNotMatch(out, /no target/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
