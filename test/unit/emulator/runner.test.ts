// GET /runner/install.sh: served without a token; the installer runs under sh in a temp folder and
// the fake runner it installs answers configure, run, status and logs, never showing the token.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { start, tempDir, type Harness } from './helpers';

const RUNNER_TOKEN = 'rt-0123456789abcdefWXYZ';

function sh(cwd: string, cmd: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 15_000, env: { PATH: process.env.PATH, HOME: cwd, ...env } });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('emulator: GET /runner/install.sh and the fake runner', () => {
  let h: Harness;
  let script: string;
  before(async () => {
    h = await start();
    const res = await request(`${h.url}/runner/install.sh`); // no Authorization header
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    script = await res.body.text();
  });
  after(() => h.close());

  it('is a POSIX sh script naming the emulator, served without a token (HEAD too)', async () => {
    assert.match(script, /^#!\/bin\/sh\n/);
    assert.ok(script.includes(`service_url='${h.url}'`));
    const head = await request(`${h.url}/runner/install.sh`, { method: 'HEAD' });
    assert.equal(head.statusCode, 200);
    assert.equal(await head.body.text(), '');
    assert.equal((await request(`${h.url}/runner/install.sh`, { method: 'POST' })).statusCode, 405);
  });

  it('installs into ./service-runner by default, into --dir or $SERVICE_RUNNER_DIR otherwise, and nothing else', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'install.sh'), script);
    const r = sh(dir, 'sh', ['install.sh']);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /installed the fake runner .*\.\/service-runner\/runner/);
    assert.ok(r.out.includes(`configure --url ${h.url} --token <RUNNER_TOKEN>`));
    assert.equal(statSync(join(dir, 'service-runner', 'runner')).mode & 0o111, 0o111, 'executable');
    assert.equal(sh(dir, 'sh', ['install.sh', '--dir', 'my bin']).status, 0);
    assert.ok(existsSync(join(dir, 'my bin', 'runner')));
    assert.equal(sh(dir, 'sh', ['install.sh'], { SERVICE_RUNNER_DIR: join(dir, 'from-env') }).status, 0);
    assert.ok(existsSync(join(dir, 'from-env', 'runner')));
    assert.equal(sh(dir, 'sh', ['install.sh', '--bogus']).status, 2);
    assert.equal(existsSync(join(dir, '.local')), false, 'not into $HOME unless asked');
  });

  it('the fake runner answers each subcommand and never prints or stores the token', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'install.sh'), script);
    assert.equal(sh(dir, 'sh', ['install.sh']).status, 0);
    const runner = join(dir, 'service-runner', 'runner');

    assert.match(sh(dir, runner, ['status']).out, /^not configured/);
    const early = sh(dir, runner, ['run']);
    assert.equal(early.status, 1);
    assert.match(early.err, /not configured; run: runner configure --url/);
    assert.equal(sh(dir, runner, ['configure', '--url', h.url]).status, 2, 'no token');
    assert.equal(sh(dir, runner, ['configure', '--url', 'ftp://x', '--token', RUNNER_TOKEN]).status, 2, 'not http(s)');

    const conf = sh(dir, runner, ['configure', '--url', h.url, '--token', RUNNER_TOKEN]);
    assert.equal(conf.status, 0, conf.err);
    assert.match(conf.out, new RegExp(`would register this machine as a self-hosted runner of ${h.url} with token \\*\\*\\*\\*WXYZ`));
    const run = sh(dir, runner, ['run']);
    assert.equal(run.status, 0);
    assert.match(run.out, new RegExp(`would connect to ${h.url} and wait for jobs`));
    assert.match(sh(dir, runner, ['status']).out, new RegExp(`configured for ${h.url} \\(token \\*\\*\\*\\*WXYZ\\)`));
    const logs = sh(dir, runner, ['logs']).out;
    assert.match(logs, /configure --url .* --token \*\*\*\*WXYZ\n.* run\n$/);
    assert.equal(sh(dir, runner, ['deploy']).status, 2);
    assert.equal(sh(dir, runner, []).status, 2);

    const everything = [conf, run].map((r) => r.out + r.err).join('') + logs;
    assert.ok(!everything.includes(RUNNER_TOKEN), 'the token is never printed');
    for (const f of ['runner.conf', 'runner.log']) {
      const file = join(dir, 'service-runner', f);
      assert.ok(!readFileSync(file, 'utf8').includes(RUNNER_TOKEN), `${f} does not hold the token`);
      assert.equal(statSync(file).mode & 0o077, 0, `${f} is private`);
    }
  });
});
