// One relay per data folder (issue 10.1): a second relay on the same --data refuses to start with
// exit 3 and a clear message, relays on different folders run side by side, and the lock of a
// relay killed with SIGKILL is taken over at the next start. Real child processes.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirLockedError, LOCK_FILE, startRelay } from '../../../../relay/server';
import { cli, post, spawnRelay, tempDir, type RelayProcess } from '../support/helpers';

/** Runs `relay` expecting it to exit before it listens; resolves with its code and stderr. */
async function refused(args: string[]): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [await cli(), 'relay', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  assert.doesNotMatch(stdout, /relay listening/);
  return { code, stderr };
}

describe('relay data folder lock', function () {
  this.timeout(60_000);
  const procs: RelayProcess[] = [];
  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop('SIGKILL');
  });

  it('refuses a second relay on the same folder (exit 3, names the owner), and the first keeps serving', async () => {
    const data = tempDir();
    const first = await spawnRelay(['--data', data]);
    procs.push(first);
    const second = await refused(['--data', data]);
    assert.equal(second.code, 3, second.stderr);
    assert.match(second.stderr, new RegExp(`data folder ${data.replace(/[/.]/g, '\\$&')} is in use by another relay \\(pid ${first.child.pid}\\)`));
    assert.match(second.stderr, /another --data folder/);
    assert.equal((await post(`${first.url}/hooks/default`, '{"still":"here"}')).status, 200);
    const listed = await fetch(`${first.url}/api/deliveries`, { headers: { authorization: `Bearer ${readFileSync(join(data, 'token'), 'utf8').trim()}` } });
    assert.deepEqual(
      ((await listed.json()) as { deliveries: { seq: number }[] }).deliveries.map((d) => d.seq),
      [1],
    );
  });

  it('runs two relays on different folders side by side', async () => {
    const a = await spawnRelay(['--data', tempDir()]);
    procs.push(a);
    const b = await spawnRelay(['--data', tempDir()]);
    procs.push(b);
    assert.equal((await post(`${a.url}/hooks/default`, '{}')).status, 200);
    assert.equal((await post(`${b.url}/hooks/default`, '{}')).status, 200);
  });

  it('takes over the lock of a relay killed with SIGKILL, and gives it back on a clean stop', async () => {
    const data = tempDir();
    const killed = await spawnRelay(['--data', data]);
    assert.equal((await post(`${killed.url}/hooks/default`, '{"n":1}')).status, 200);
    await killed.stop('SIGKILL');
    assert.ok(existsSync(join(data, LOCK_FILE)), 'a killed relay leaves its lock behind');
    const next = await spawnRelay(['--data', data]);
    procs.push(next);
    assert.match(readFileSync(join(data, LOCK_FILE), 'utf8'), new RegExp(`"pid":${next.child.pid}\\b`));
    // Its journal is the killed relay's (a seq after a crash may skip ahead, never back).
    assert.ok(((await post(`${next.url}/hooks/default`, '{"n":2}')).json as { seq: number }).seq > 1);
    assert.equal(await next.stop('SIGTERM'), 0);
    assert.ok(!existsSync(join(data, LOCK_FILE)), 'a clean stop removes the lock');
  });

  it('in one process: a second startRelay on the folder throws DataDirLockedError until the first is closed', async () => {
    const data = tempDir();
    const first = await startRelay({ port: 0, dataDir: data });
    await assert.rejects(startRelay({ port: 0, dataDir: data }), (err: unknown) => err instanceof DataDirLockedError && err.pid === process.pid);
    await first.close();
    const again = await startRelay({ port: 0, dataDir: data });
    await again.close();
  });

  it('gives the lock back when listening fails (the port is taken)', async () => {
    const data = tempDir();
    const other = await startRelay({ port: 0, dataDir: tempDir() });
    try {
      await assert.rejects(startRelay({ port: other.port, dataDir: data }), (err: NodeJS.ErrnoException) => err.code === 'EADDRINUSE');
      assert.ok(!existsSync(join(data, LOCK_FILE)));
    } finally {
      await other.close();
    }
  });
});
