// Start Relay's process: the bundled CLI with its secret in a 0600 config file (not argv); a port
// in use makes start() fail with a sentence that says so, and nothing is attached.
import { strict as assert } from 'node:assert';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { CONFIG_FILE, lastLines, RelayProcess, RelayStartError, redactToken } from '../../../../src/extension/relay/process';
import { cli, post, signed, tempDir } from '../../relay/support/helpers';

const SECRET = 'process-test-secret-0123456789abcdef';

describe('editor relay process (Start Relay)', function () {
  this.timeout(60_000);
  const procs: RelayProcess[] = [];
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop();
  });

  it('runs the CLI with the secret in a 0600 config file, not argv; a signed delivery arrives verified', async () => {
    const dataDir = tempDir();
    const p = new RelayProcess();
    procs.push(p);
    const started = await p.start({ cliPath: await cli(), port: 0, dataDir, secrets: [SECRET], forward: [] });
    assert.ok(started.port > 0 && started.token.length > 20);
    const config = join(dataDir, CONFIG_FILE);
    assert.equal(statSync(config).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(readFileSync(config, 'utf8')).secrets, [SECRET]);
    const pid = (p as unknown as { child: { pid: number } }).child.pid;
    assert.ok(!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(SECRET), 'the secret is not on the command line');
    const body = '{"zen":"ping"}';
    const r = await post(`http://127.0.0.1:${started.port}/hooks/default`, body, signed(SECRET, body));
    assert.equal(r.status, 200);
    assert.equal((r.json as { verification: string }).verification, 'verified');
  });

  it('a port already in use fails start() with a sentence, and nothing is left running', async () => {
    const squatter = createServer();
    squatter.listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    const port = (squatter.address() as { port: number }).port;
    try {
      const p = new RelayProcess();
      procs.push(p);
      await assert.rejects(p.start({ cliPath: await cli(), port, dataDir: tempDir(), secrets: [SECRET], forward: [] }), (err: Error) => {
        assert.ok(err instanceof RelayStartError);
        assert.match(err.message, new RegExp(`Port ${port} is already in use`));
        return true;
      });
      assert.equal(p.running, false);
    } finally {
      squatter.close();
    }
  });

  it('tells onExit when the relay it started dies', async () => {
    const p = new RelayProcess();
    procs.push(p);
    await p.start({ cliPath: await cli(), port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [] });
    const exited = new Promise<number | null>((resolve) => p.onExit((code) => resolve(code)));
    (p as unknown as { child: { kill(s: string): void } }).child.kill('SIGKILL');
    assert.equal(await exited, null);
    assert.equal(p.running, false);
  });

  it('redacts the token line the relay prints once, whatever the path holds', () => {
    assert.equal(
      redactToken('relay token (shown once; stored in /home/u/.x/token): abcDEF123'),
      'relay token (shown once; stored in /home/u/.x/token): <redacted>',
    );
    assert.equal(
      redactToken('relay token (shown once; stored in c:\\Users\\u\\token): abcDEF123'),
      'relay token (shown once; stored in c:\\Users\\u\\token): <redacted>',
    );
    assert.equal(redactToken('relay listening on http://127.0.0.1:8788'), 'relay listening on http://127.0.0.1:8788');
  });

  it("an exit's last lines: two, without the token line, blank lines or stack frames", () => {
    const output =
      'relay token (shown once; stored in /x/token): abcDEF123\nrelay listening on http://127.0.0.1:1\n\nError: EACCES: open /data/journal\n    at open (node:fs:1)\n';
    assert.equal(lastLines(output), 'relay listening on http://127.0.0.1:1 Error: EACCES: open /data/journal');
    assert.equal(lastLines('relay token: abcDEF123\r\n'), '', 'nothing but the token line');
  });
});
