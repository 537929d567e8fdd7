// A delivery that a `service-hooks forward` subscriber forwarded and acknowledged shows as
// forwarded (issue 10.8): the relay records the app's status under SUBSCRIBER_TARGET and
// `service-hooks deliveries` prints it instead of "forward: no target". Real processes.
import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import { SUBSCRIBER_TARGET } from '../../../../../src/core/relay/protocol';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { cli, post, startTarget, tempDir, type TargetApp } from '../../support/helpers';
import { until } from '../../../../support/until';

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
  /** What the test reached, and the forward child's stderr: printed if it fails (it once timed out in a full run, never alone). */
  const trace: string[] = [];
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') process.stderr.write(`subscriber-forward trace:\n  ${trace.join('\n  ')}\n`);
    trace.length = 0;
    await relay.close();
    await target.close();
  });

  it('records the app status under the subscriber target and prints it', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir() });
    target = await startTarget();
    target.status = 202;
    const child = spawn(
      process.execPath,
      [await cli(), 'forward', '--relay', `ws://127.0.0.1:${relay.port}`, '--token', relay.token, '--to', target.url, '--since', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (c: Buffer) => trace.push(`forward stdout: ${c.toString().trim()}`));
    child.stderr!.on('data', (c: Buffer) => trace.push(`forward stderr: ${c.toString().trim()}`));
    child.on('exit', (code, signal) => trace.push(`forward exited: ${code ?? signal}`));
    try {
      assert.equal((await post(`${relay.url}/hooks/default`, '{"a":1}', { 'x-service-event': 'push' })).status, 200);
      trace.push('posted seq 1');
      await target.waitFor(1);
      trace.push(`the app got it; forward states recorded: ${relay.store.get(1)?.summary.forward.length ?? '?'}`);
      await until(
        () => (relay.store.get(1)!.summary.forward.length > 0 ? true : undefined),
        (wake) => (relay.store.on('forward', wake), () => relay.store.off('forward', wake)),
      );
      assert.deepEqual(relay.store.get(1)!.summary.forward, [{ target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 202, attempts: 1 }]);
      trace.push('the ack is recorded; running service-hooks deliveries');
      const out = await deliveriesCli(relay);
      assert.match(out, /#1 .* forward: ok 202 \(by a forward subscriber\)/);
      assert.doesNotMatch(out, /no target/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
