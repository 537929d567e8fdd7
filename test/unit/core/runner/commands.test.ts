// The runner set-up line (src/core/runner): download, configure and run each only if the step
// before worked, base URLs with control characters refused, quoting that keeps a quote data, and
// the line run in a real shell against the emulator writing nothing in the workspace.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../../../relay/emulator';
import { runnerCommands, shq } from '../../../../src/core/runner';

const FOLDER = '/home/dev/.config/ext/runner';

describe('runner set-up commands', () => {
  it('download to a file with curl -f, run it, configure and run, each only if the step before worked', () => {
    const plan = runnerCommands('http://127.0.0.1:8787/', FOLDER, 'TOK');
    assert.ok(plan.ok);
    assert.deepEqual(plan.steps, [
      `mkdir -p '${FOLDER}'`,
      `curl -fsSL 'http://127.0.0.1:8787/runner/install.sh' -o '${FOLDER}/install.sh'`,
      `sh '${FOLDER}/install.sh' --dir '${FOLDER}/service-runner'`,
      `'${FOLDER}/service-runner/runner' configure --url 'http://127.0.0.1:8787' --token "$TOK"`,
      `'${FOLDER}/service-runner/runner' run`,
    ]);
    assert.equal(plan.line, plan.steps.join(' && '));
    assert.doesNotMatch(plan.line, /\|\s*sh\b/, 'never piped into sh');
    assert.doesNotMatch(plan.line, /\n/, 'one line: nothing runs before the user presses Enter');
  });

  it('refuses a base URL with control characters (a Ctrl-U would erase the typed line) or without a scheme', () => {
    const ctrlU = runnerCommands('http://127.0.0.1:8787/\u0015; rm -rf ~', FOLDER);
    assert.ok(!ctrlU.ok && /control character/.test(ctrlU.problem));
    assert.ok(!runnerCommands('127.0.0.1:8787', FOLDER).ok);
    assert.ok(!runnerCommands('http://h', FOLDER, 'BAD NAME').ok);
    const relative = runnerCommands('http://h', './service-runner');
    assert.ok(!relative.ok && /absolute path/.test(relative.problem), 'a relative folder would land in the workspace');
  });

  it('quotes what it types: a quote in the URL stays data', () => {
    const plan = runnerCommands("http://127.0.0.1:8787/a'b", FOLDER);
    assert.ok(plan.ok);
    assert.match(plan.line, /'http:\/\/127\.0\.0\.1:8787\/a'\\''b'/);
    const echoed = execFileSync('sh', ['-c', `printf %s ${shq("it's $HOME `x`")}`], { encoding: 'utf8' });
    assert.equal(echoed, "it's $HOME `x`");
  });

  it('run in a shell from the workspace, the line installs into the folder it names and writes nothing in the workspace', async function () {
    this.timeout(30_000);
    const root = mkdtempSync(join(tmpdir(), 'sh-runner-line-'));
    const emulator = await startEmulator({ port: 0, host: '127.0.0.1', token: 'runner-line-token' });
    try {
      const workspace = join(root, 'workspace');
      const folder = join(root, "global storage's", 'runner');
      execFileSync('mkdir', ['-p', workspace]);
      const plan = runnerCommands(emulator.url, folder, 'TOK');
      assert.ok(plan.ok);
      // Not spawnSync: the emulator answering curl runs in this process.
      const r = await promisify(execFile)('sh', ['-c', plan.line], {
        cwd: workspace,
        encoding: 'utf8',
        timeout: 20_000,
        env: { PATH: process.env.PATH, HOME: root, TOK: 'rt-line-0123456789' },
      });
      assert.match(r.stdout, /would connect to .* and wait for jobs/);
      assert.deepEqual(readdirSync(workspace), [], 'no install.sh, no service-runner/ in the workspace');
      assert.ok(existsSync(join(folder, 'install.sh')) && existsSync(join(folder, 'service-runner', 'runner')));
    } finally {
      await emulator.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
