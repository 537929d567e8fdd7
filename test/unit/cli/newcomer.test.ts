// The CLI tried as a newcomer would (issue QA pass): real child processes of the bundled CLI, real
// HTTP on 127.0.0.1, wrong input on purpose. Each test here failed before its fix.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { DEMO_SECRET } from '../../../src/core/defaults';
import { EXIT_PORT_IN_USE } from '../../../src/core/relay/ready';
import { verify } from '../../../src/core/signing';
import { makeTestCerts } from '../relay/support/certs';
import { cli, post, signed, spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../relay/support/helpers';
import { spawnRelayWith } from '../relay/support/publicHelpers';
import { freePort } from '../../support/freePort';

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  code: Promise<number | null>;
  /** Resolves once stderr (or stdout) holds `re`. */
  saw(re: RegExp): Promise<void>;
}

async function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Proc> {
  const child = spawn(process.execPath, [await cli(), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: tempDir('sh-qa-home-'), ...env },
  });
  let out = '';
  let err = '';
  const wake: (() => void)[] = [];
  const grow = () => wake.splice(0).forEach((w) => w());
  child.stdout!.on('data', (c: Buffer) => ((out += c.toString()), grow()));
  child.stderr!.on('data', (c: Buffer) => ((err += c.toString()), grow()));
  const code = new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  const saw = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (re.test(out + err) ? resolve() : wake.push(check));
      void code.then(() => (re.test(out + err) ? resolve() : reject(new Error(`exited without ${re}: ${out}${err}`))));
      check();
    });
  return { child, stdout: () => out, stderr: () => err, code, saw };
}

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = await start(args, env);
  const code = await p.code;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

describe('newcomer: the CLI with wrong input and end to end', function () {
  this.timeout(60_000);
  const relays: RelayProcess[] = [];
  const apps: TargetApp[] = [];
  const procs: Proc[] = [];
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const r of relays) await r.stop('SIGKILL');
    for (const a of apps) await a.close();
  });

  it('emulate --demo → relay --secret demo-secret → app: the demo push arrives byte-exact and verifies', async () => {
    const app = await startTarget();
    apps.push(app);
    const relay = await spawnRelay(['--data', tempDir(), '--secret', DEMO_SECRET, '--forward', app.url]);
    relays.push(relay);
    const emu = await start(['emulate', '--demo', '--port', '0', '--token', 'qa-token-0123456789', '--demo-relay-url', `${relay.url}/hooks/default`]);
    procs.push(emu);
    await app.waitFor(1);
    const got = app.received[0]!;
    assert.equal(got.headers['x-service-event'], 'push');
    assert.equal(verify(got.body, got.headers['x-service-signature'] as string, [DEMO_SECRET]).ok, true);
    assert.doesNotMatch(relay.stderr(), /warning/, 'the demo secret is long enough for the relay (16 bytes or more)');
    emu.child.kill('SIGTERM');
    assert.equal(await emu.code, 0);
  });

  it('relay --allow-cidr with a bad CIDR exits 2 before it creates a token or a journal', async () => {
    const data = join(tempDir(), 'data');
    const r = await run(['relay', '--port', '0', '--data', data, '--allow-cidr', '10.0.0.0/99']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not a CIDR or preset.*10\.0\.0\.0\/99/);
    assert.doesNotMatch(r.stdout, /token/);
    assert.equal(existsSync(data) ? readdirSync(data).length : 0, 0, 'nothing written to the data folder');
    assert.doesNotMatch(r.stderr, /garbage collection| {4}at /);
  });

  it('relay on a taken port exits 4 (EXIT_PORT_IN_USE) without showing a token it then never shows again; the next start shows it', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const data = join(tempDir(), 'data');
    try {
      const r = await run(['relay', '--port', String((taken.address() as { port: number }).port), '--data', data]);
      assert.equal(r.code, EXIT_PORT_IN_USE);
      assert.match(r.stderr, /in use|EADDRINUSE/);
      assert.doesNotMatch(r.stdout, /token/);
      assert.equal(existsSync(join(data, 'token')), false);
    } finally {
      taken.close();
    }
    const relay = await spawnRelay(['--data', data]);
    relays.push(relay);
    assert.match(relay.stdout(), new RegExp(`relay token \\(shown once; stored in .*\\): ${readFileSync(join(data, 'token'), 'utf8').trim()}`));
  });

  it('relay --store nats://… stops on SIGTERM while it waits for a NATS server that is not there', async () => {
    const port = await freePort();
    const relay = await start(['relay', '--port', '0', '--data', tempDir(), '--store', `nats://user:pw-not-shown@127.0.0.1:${port}`]);
    procs.push(relay);
    await relay.saw(/connecting to NATS/);
    relay.child.kill('SIGTERM');
    assert.equal(await relay.code, 0);
    assert.match(relay.stderr(), /stopped before it started/);
    assert.doesNotMatch(relay.stdout() + relay.stderr(), /pw-not-shown/);
  });

  it("forward takes the http:// address the relay prints and the relay's --data for its token, forwards a signed delivery and stops on SIGTERM", async () => {
    const app = await startTarget();
    apps.push(app);
    const data = tempDir();
    const relay = await spawnRelay(['--data', data, '--secret', DEMO_SECRET]);
    relays.push(relay);
    const token = readFileSync(join(data, 'token'), 'utf8').trim();
    const fwd = await start(['forward', '--relay', relay.url, '--data', data, '--to', app.url]);
    procs.push(fwd);
    await fwd.saw(/: connected \(relay at seq/);
    const body = JSON.stringify({ hello: 'newcomer' });
    assert.equal((await post(`${relay.url}/hooks/default`, body, signed(DEMO_SECRET, body))).status, 200);
    await app.waitFor(1);
    assert.equal(app.received[0]!.body.toString(), body);
    fwd.child.kill('SIGTERM');
    assert.equal(await fwd.code, 0);
    assert.doesNotMatch(fwd.stdout() + fwd.stderr(), new RegExp(token));
  });

  it('forward with a wrong token exits 1 with the reason instead of retrying forever, and never prints the token', async () => {
    const relay = await spawnRelay(['--data', tempDir()]);
    relays.push(relay);
    const r = await run(['forward', '--relay', relay.url.replace('http', 'ws'), '--token', 'wrong-token-qa-42', '--to', 'http://127.0.0.1:9/x']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused the connection \(HTTP 401\).*token/);
    assert.doesNotMatch(r.stdout + r.stderr, /wrong-token-qa-42| {4}at /);
  });

  it('forward refuses a channel name the relay can never have, and a non-URL --relay, with exit 2', async () => {
    const bad = await run(['forward', '--relay', 'ws://127.0.0.1:9', '--token', 't', '--to', 'http://127.0.0.1:9/x', '--channel', 'bad name']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--channel must be a channel name/);
    const url = await run(['forward', '--relay', 'ftp://127.0.0.1:9', '--token', 't', '--to', 'http://127.0.0.1:9/x']);
    assert.equal(url.code, 2);
    assert.match(url.stderr, /--relay must be a ws\(s\):\/\/ or http\(s\):\/\/ URL, got 'ftp:\/\/127\.0\.0\.1:9'/);
  });

  it('replay --resign-secret "" is a usage error (exit 2), not an unsigned replay', async () => {
    const r = await run(['replay', '1', '--relay', 'http://127.0.0.1:9', '--token', 't', '--resign-secret', '']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--resign-secret must not be empty/);
  });

  it('deliveries against something that is not a relay says so (exit 1), not a JSON parser error', async () => {
    const app = await startTarget(); // answers 200 "ok"
    apps.push(app);
    const r = await run(['deliveries', '--relay', `http://127.0.0.1:${app.port}`, '--token', 'secret-token-qa-7']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not JSON; is http:\/\/127\.0\.0\.1:\d+ a relay\?/);
    assert.doesNotMatch(r.stderr, /Unexpected token|secret-token-qa-7| {4}at /);
  });

  it('deliveries --relay http:// against a TLS relay says to use https:// (it said only "other side closed")', async () => {
    const certs = makeTestCerts();
    const data = tempDir();
    const relay = await spawnRelayWith(['--data', data, '--tls-cert', certs.serverCert, '--tls-key', certs.serverKey]);
    relays.push(relay);
    const r = await run(['deliveries', '--relay', relay.url.replace('https:', 'http:'), '--data', data]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /closed the connection without answering; this port speaks TLS: use https:\/\/127\.0\.0\.1:\d+\//);
    const ok = await run(['deliveries', '--relay', relay.url, '--data', data], { NODE_EXTRA_CA_CERTS: certs.caCert });
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('channels create with a bad name and deliveries --status outside the six are exit 2 before asking the relay; a rejected delivery is "none (rejected)", not "no target"', async () => {
    const name = await run(['channels', 'create', 'bad name', '--generate-secret', '--relay', 'http://127.0.0.1:9', '--token', 't']);
    assert.equal(name.code, 2, 'a channel name the relay refuses is a usage error, not a relay failure');
    assert.match(name.stderr, /a channel NAME is 1 to 64 letters/);
    const bad = await run(['deliveries', '--relay', 'http://127.0.0.1:9', '--token', 't', '--status', 'bogus']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--status must be one of verified, unverified, rejected, pending, ok, failed, got 'bogus'/);
    const data = tempDir();
    const relay = await spawnRelay(['--data', data, '--secret', DEMO_SECRET]);
    relays.push(relay);
    const body = JSON.stringify({ forged: true });
    assert.equal((await post(`${relay.url}/hooks/default`, body, signed('not-the-secret', body))).status, 401);
    const r = await run(['deliveries', '--relay', relay.url, '--data', data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /#1 .* rejected .* forward: none \(rejected\)/);
    assert.match(r.stderr, /^1 delivery \(relay at seq 1\)/m);
  });

  it('emulate --state in a folder that does not exist stops at start (exit 1) instead of losing every change', async () => {
    const state = join(tempDir(), 'missing', 'state.json');
    const r = await run(['emulate', '--port', '0', '--token', 'qa-token-0123456789', '--state', state]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot keep the state file .*state\.json: the folder .*missing does not exist/);
    assert.doesNotMatch(r.stdout, /listening/);
  });
});
