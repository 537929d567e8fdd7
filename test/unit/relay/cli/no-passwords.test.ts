// Pins issue 36.12: no password or token in what the CLI prints: usage errors quoting --store or
// --public-url (text and --log-format json), the channels command's --relay hints, runtime log
// lines (a ?token= target, a newline in a value), and under --log-format json every stderr line is
// JSON, the first start's token line too (it names the token file, never the token).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { relayLogger } from '../../../../relay/cli/relayLog';
import { startRelay } from '../../../../relay/server';
import { cli, spawnRelay, startTarget, tempDir } from '../support/helpers';

const PASSWORD = 'pa@ss-w0rd-4217';

/** The bundled CLI as a child process: its exit code and what it printed. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, [await cli(), ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, out, err };
}

describe('no password or token in what the CLI prints (issue 36.12)', function () {
  this.timeout(60_000);

  // Each row: the arguments, what the message must still say.
  const usage: [string, string[], RegExp][] = [
    ['--store with a password', ['--store', `ftp://relay:${PASSWORD}@nats.example:4222`], /--store: 'ftp:\/\/\[redacted\]@nats\.example:4222' names no store/],
    [
      '--public-url with a password',
      ['--public-url', `https://ops:${PASSWORD}@relay.example`],
      /--public-url must be .* got 'https:\/\/\[redacted\]@relay\.example'/,
    ],
  ];
  for (const [what, args, says] of usage) {
    for (const format of ['text', 'json'] as const) {
      it(`usage error, ${what}, --log-format ${format}: exit 2, said, not shown`, async () => {
        const r = await run(['relay', '--port', '0', '--data', tempDir(), '--log-format', format, ...args]);
        assert.equal(r.code, 2, r.err);
        assert.ok(!r.err.includes(PASSWORD) && !r.out.includes(PASSWORD), r.err);
        assert.ok(!r.err.includes('pa@ss') && !r.err.includes('w0rd'), 'no part of it either');
        if (format === 'text') assert.match(r.err, says);
        else {
          const lines = r.err.split('\n').filter(Boolean);
          assert.ok(lines.length >= 1);
          const entries = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
          assert.equal(entries[0]!.level, 'error');
          assert.match(entries[0]!.msg, says);
        }
      });
    }
  }

  it('--log-format json: a flag that does not parse is a JSON line too (exit 2)', async () => {
    const r = await run(['relay', '--port', '0', '--data', tempDir(), '--log-format', 'json', '--no-such-flag']);
    assert.equal(r.code, 2, r.err);
    const entries = r.err
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: string; msg: string });
    assert.equal(entries.length, 1, r.err);
    assert.equal(entries[0]!.level, 'error');
    assert.match(entries[0]!.msg, /no-such-flag/);
  });

  it('channels create --relay http://user:password@…: the forward hint and errors show no password', async () => {
    const relay = await startRelay({ port: 0, dataDir: tempDir() });
    try {
      const url = relay.url.replace('http://', `http://ops:${PASSWORD}@`);
      const r = await run(['channels', 'create', 'team', '--generate-secret', '--relay', url, '--token', relay.token]);
      assert.ok(!r.err.includes(PASSWORD) && !r.out.includes(PASSWORD), `${r.out}\n${r.err}`);
      assert.ok(!r.err.includes('w0rd') && !r.out.includes('w0rd'), `${r.out}\n${r.err}`);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out + r.err, /\[redacted\]@127\.0\.0\.1/, `${r.out}\n${r.err}`);
    } finally {
      await relay.close();
    }
  });

  it('send --to http://user:password@…?token=…: the POST line shows neither', async () => {
    const app = await startTarget();
    try {
      const to = `${app.url.replace('http://', `http://ops:${encodeURIComponent(PASSWORD)}@`)}?token=q-secret-0123`;
      const r = await run(['send', 'ping', '--to', to]);
      assert.match(r.out, /POST http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/webhook\?token=\[redacted\]/, r.out + r.err);
      for (const leak of ['w0rd', 'q-secret-0123']) assert.ok(!r.out.includes(leak) && !r.err.includes(leak), `${leak}: ${r.out}\n${r.err}`);
    } finally {
      await app.close();
    }
  });

  it('runtime log lines: a ?token= target, a path secret and a newline neither leak nor forge a line', () => {
    const text: string[] = [];
    const logger = relayLogger('text', (s) => text.push(s));
    logger.log('forward to https://app.example/hook?token=q-secret-0123 failed');
    logger.log('forward to https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdEFGH1234ijklMNOP5678 failed');
    logger.log("channel 'x'\nrelay: forged line");
    const all = text.join('');
    assert.ok(!all.includes('q-secret-0123') && !all.includes('abcdEFGH1234ijklMNOP5678'), all);
    assert.equal(all.split('\n').filter(Boolean).length, 3, 'three calls, three lines');
  });

  it('--log-format json, first start: every stderr line is JSON, the token line names the file, the token is nowhere', async () => {
    const data = tempDir();
    const env = { ...process.env };
    delete env.SERVICE_HOOKS_RELAY_TOKEN;
    // --public without --public-url adds a warning: a JSON line as well.
    const relay = await spawnRelay(['--data', data, '--log-format', 'json', '--public', '--trust-proxy', '127.0.0.1', '--host', '127.0.0.1'], env);
    try {
      const token = readFileSync(join(data, 'token'), 'utf8').trim();
      assert.equal(await relay.stop('SIGTERM'), 0);
      const entries = relay
        .stderr()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { msg: string });
      assert.ok(
        entries.some((e) => e.msg.includes(join(data, 'token'))),
        relay.stderr(),
      );
      assert.ok(!relay.stdout().includes(token) && !relay.stderr().includes(token), 'the token is not printed');
      assert.ok(
        entries.some((e) => e.msg.startsWith('--public without --public-url')),
        relay.stderr(),
      );
    } finally {
      await relay.stop('SIGKILL');
    }
  });
});
