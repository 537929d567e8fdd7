// `service-hooks emulate` as a real child process (the CLI bundle built like dist/cli.js):
// help, usage errors (exit 2), the printed address and token handling, SIGTERM with the state flushed.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SECRET } from '../../../src/core/defaults';
import { call, cliBundle, start, startReceiver, tempDir, TOKEN } from './helpers';

interface Proc {
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<number | null>;
}

async function spawnEmulator(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Proc> {
  const child = spawn(process.execPath, [await cliBundle(), 'emulate', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SERVICE_HOOKS_EMULATOR_TOKEN: '', ...env },
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      // Wait for the curl line: the last of the start-up output.
      const m = /emulator listening on (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*list webhooks: .*\n/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`emulate exited with ${code}: ${err}`)));
  });
  return {
    url,
    stdout: () => out,
    stderr: () => err,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const r = spawnSync(process.execPath, [await cliBundle(), 'emulate', ...args], { encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('service-hooks emulate (process)', function () {
  this.timeout(30_000);
  before(async () => {
    await cliBundle();
  });

  it('--help prints every option and exits 0', async () => {
    const r = await run(['--help']);
    assert.equal(r.status, 0);
    for (const flag of [
      '--port',
      '--host',
      '--token',
      '--state',
      '--time-scale',
      '--demo',
      '--demo-relay-url',
      '--max-body',
      '--delivery-timeout',
      'SERVICE_HOOKS_EMULATOR_TOKEN',
      '/_emulator/repos/<org>/<repo>/events',
    ]) {
      assert.ok(r.stdout.includes(flag), flag);
    }
  });

  for (const [args, message] of [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--port', 'x'], /--port must be an integer/],
    [['--time-scale', '0'], /--time-scale must be a positive number/],
    [['--time-scale', 'fast'], /--time-scale/],
    [['--max-body', 'lots'], /--max-body must be a size/],
    [['--demo-relay-url', 'ftp://x'], /--demo-relay-url must be an http\(s\) URL/],
    [['--demo-relay-url', 'http://169.254.169.254/latest'], /--demo-relay-url .*link-local/],
    [['--demo-relay-url', 'http://0.0.0.0:8788/hooks/default'], /--demo-relay-url .*unspecified/],
    [['--delivery-timeout', '0'], /--delivery-timeout/],
    [['--token', ''], /--token must not be empty/],
    [['extra-positional'], /positional/i],
    [['--list-deliveries', '--documented-only'], /contradict/],
  ] as [string[], RegExp][]) {
    it(`usage error exits 2: ${args.join(' ')}`, async () => {
      const r = await run(args);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  }

  it('serves the documented API only by default (as the real service); the deliveries listing only with --list-deliveries', async () => {
    const relay = await startReceiver(200);
    try {
      const documented = await spawnEmulator(['--token', TOKEN, '--demo', '--demo-relay-url', relay.url]);
      const hooks = await call(documented.url, 'GET', '/api/v1/repos/acme/widgets/webhooks');
      assert.equal(hooks.status, 200);
      assert.equal((await call(documented.url, 'GET', `/api/v1/webhooks/${hooks.json[0].id}/deliveries`)).status, 404, 'no deliveries listing by default');
      assert.equal((await call(documented.url, 'POST', `/api/v1/webhooks/${hooks.json[0].id}/ping`)).status, 202, 'the documented endpoints are served');
      assert.equal(await documented.stop(), 0);
      const listing = await spawnEmulator(['--token', TOKEN, '--demo', '--demo-relay-url', relay.url, '--list-deliveries']);
      const hooks2 = await call(listing.url, 'GET', '/api/v1/repos/acme/widgets/webhooks');
      assert.equal((await call(listing.url, 'GET', `/api/v1/webhooks/${hooks2.json[0].id}/deliveries`)).status, 200);
      assert.equal(await listing.stop(), 0);
    } finally {
      await relay.close();
    }
  });

  it('serves the API with --token (never echoed), fires the demo, and flushes the state on SIGTERM', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const relay = await startReceiver(200);
    try {
      const p = await spawnEmulator(['--token', TOKEN, '--state', state, '--demo', '--demo-relay-url', relay.url, '--time-scale', '60000']);
      assert.match(p.stdout(), /^emulator listening on http:\/\/127\.0\.0\.1:\d+$/m);
      assert.match(p.stdout(), /curl -H "Authorization: Bearer <the --token value>" http:\/\/127\.0\.0\.1:\d+\/api\/v1\/repos\/acme\/widgets\/webhooks/);
      const hooks = await call(p.url, 'GET', '/api/v1/repos/acme/widgets/webhooks');
      assert.equal(hooks.status, 200);
      assert.equal(hooks.json.length, 2);
      assert.equal((await call(p.url, 'GET', '/api/v1/repos/acme/widgets/webhooks', undefined, { authorization: 'Bearer wrong' })).status, 401);
      await relay.signal.until(() => relay.received.length >= 1, 'the demo push');
      const created = await call(p.url, 'POST', '/api/v1/repos/acme/widgets/webhooks', { url: relay.url, content_type: 'json', events: ['agent'] });
      assert.equal(created.status, 201);
      assert.equal(await p.stop(), 0);
      assert.match(p.stderr(), /emulator: stopped/);
      assert.ok(!p.stdout().includes(TOKEN) && !p.stderr().includes(TOKEN), 'the token given on the command line is not printed');
      assert.ok(!p.stderr().includes(DEMO_SECRET), 'no webhook secret in the log');
      assert.equal(statSync(state).mode & 0o777, 0o600);
      const saved = JSON.parse(readFileSync(state, 'utf8'));
      assert.deepEqual(
        saved.webhooks.map((w: { id: string }) => w.id),
        ['1', '2', created.json.id],
      );
    } finally {
      await relay.close();
    }
  });

  it('generates a token and prints it once when none is given; takes it from the environment otherwise', async () => {
    const gen = await spawnEmulator([]);
    try {
      const m = /emulator token \(generated, shown once\): (\S+)/.exec(gen.stdout());
      assert.ok(m, gen.stdout());
      const token = m[1]!;
      assert.equal(gen.stdout().split(token).length - 1, 2, 'the token line and the curl line');
      const ok = await call(gen.url, 'GET', '/api/v1/repos/a/b/webhooks', undefined, { authorization: `Bearer ${token}` });
      assert.equal(ok.status, 200);
    } finally {
      await gen.stop();
    }
    const fromEnv = await spawnEmulator([], { SERVICE_HOOKS_EMULATOR_TOKEN: 'env-token-123' });
    try {
      assert.ok(!/generated/.test(fromEnv.stdout()));
      assert.ok(!fromEnv.stdout().includes('env-token-123'));
      assert.match(fromEnv.stdout(), /Bearer \$SERVICE_HOOKS_EMULATOR_TOKEN/);
      assert.equal((await call(fromEnv.url, 'GET', '/api/v1/repos/a/b/webhooks', undefined, { authorization: 'Bearer env-token-123' })).status, 200);
    } finally {
      await fromEnv.stop();
    }
  });

  it('exits 1 with the reason on a broken state file, leaving the file alone', async () => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(file, 'not json');
    const r = await run(['--port', '0', '--token', 't', '--state', file]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /state file .* is not valid JSON/);
    assert.equal(readFileSync(file, 'utf8'), 'not json');
  });

  it('exits 1 with the reason on a state file of the wrong shape (webhooks: [null]) instead of serving 500s', async () => {
    const file = join(tempDir(), 'state.json');
    const content = JSON.stringify({ version: 1, next_webhook_id: 1, repos: {}, webhooks: [null], deliveries: {} });
    writeFileSync(file, content);
    const r = await run(['--port', '0', '--token', 't', '--state', file]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /state file .* is not a valid emulator state: webhooks\[0\] must be an object/);
    assert.doesNotMatch(r.stdout, /listening/);
    assert.equal(readFileSync(file, 'utf8'), content);
  });

  it('exits 1 with the reason when the port is taken', async () => {
    const other = await start();
    try {
      const r = await run(['--port', String(other.emu.port), '--token', 't']);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      await other.close();
    }
  });
});
