// The relay CLI's output as a protocol (src/core/relay/ready.ts): `--ready json` prints one line of
// JSON once the relay serves, the human lines stay as they were, and npm start's copy of the
// parser (scripts/start.mjs, plain JavaScript) reads the same line.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatRelayReady, parseRelayReady, tokenFilePath } from '../../../../src/core/relay/ready';
import { cli, relayProcesses, ROOT, spawnRelay, tempDir } from '../support/helpers';

const ready = { url: 'http://127.0.0.1:8788', dataDir: '/d/relay "x"', tokenFile: '/d/relay "x"/token', pid: 42 };

describe('relay ready line (--ready json)', function () {
  this.timeout(120_000);
  const procs = relayProcesses();

  it('says where the relay serves, its data folder, its token file and its pid', async () => {
    const data = join(tempDir(), 'relay-data');
    const relay = await spawnRelay(['--data', data]);
    procs.push(relay);
    assert.deepEqual(relay.ready, {
      ready: 'relay',
      url: `http://127.0.0.1:${relay.port}`,
      dataDir: data,
      tokenFile: tokenFilePath(data),
      pid: relay.child.pid,
    });
    assert.match(readFileSync(relay.ready.tokenFile!, 'utf8'), /^\S{16,}\n$/);
    assert.match(relay.stdout(), new RegExp(`^relay listening on http://127\\.0\\.0\\.1:${relay.port}$`, 'm'), 'the human line stays');
    assert.equal(await relay.stop(), 0);
  });

  it('tokenFile is null when SERVICE_HOOKS_RELAY_TOKEN gives the token', async () => {
    const relay = await spawnRelay(['--data', tempDir()], { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: 'env-token-0123456789abcdef' });
    procs.push(relay);
    assert.equal(relay.ready.tokenFile, null);
    assert.equal(await relay.stop(), 0);
  });

  it('without --ready json the output is the human lines only; --ready xml is a usage error', async () => {
    const run = async (args: string[]) => {
      const child = spawn(process.execPath, [await cli(), 'relay', '--port', '0', '--data', tempDir(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        // Once: the lines after it may come in further chunks, and a second SIGTERM is not handled (process.once).
        if (!child.killed && /^relay data in /m.test(out)) child.kill('SIGTERM');
      });
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, out, err };
    };
    const plain = await run([]);
    assert.equal(plain.code, 0, plain.err);
    assert.match(plain.out, /^relay listening on http:\/\/127\.0\.0\.1:\d+$/m);
    assert.equal(parseRelayReady(plain.out), undefined);
    assert.ok(!plain.out.includes('{'), plain.out);
    const bad = await run(['--ready', 'xml']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--ready must be text or json, got 'xml'/);
  });

  it('parses only a complete ready line, among other lines', () => {
    const line = formatRelayReady(ready);
    assert.deepEqual(parseRelayReady(`relay listening on x\n${line}\n`), { ready: 'relay', ...ready });
    assert.equal(parseRelayReady(line), undefined, 'not yet complete');
    assert.equal(parseRelayReady(line.slice(0, -3) + '\n'), undefined);
    assert.equal(parseRelayReady('{"ready":"emulator","url":"x"}\n{}\n[1]\n'), undefined);
    assert.equal(parseRelayReady(JSON.stringify({ ...ready, ready: 'relay', pid: '42' }) + '\n'), undefined);
  });

  it('npm start reads the same line (scripts/start.mjs relayReady)', async () => {
    const { relayReady } = (await import(pathToFileURL(join(ROOT, 'scripts', 'start.mjs')).href)) as { relayReady(output: string): unknown };
    const line = formatRelayReady(ready);
    assert.deepEqual(relayReady(`[x]\n${line}\n`), { ready: 'relay', ...ready });
    assert.equal(relayReady(line), undefined, 'not yet complete');
  });
});
