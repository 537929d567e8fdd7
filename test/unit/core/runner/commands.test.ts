import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { runnerCommands, shq } from '../../../../src/core/runner';

describe('runner set-up commands', () => {
  it('download to a file with curl -f, run it, configure and run, each only if the step before worked', () => {
    const plan = runnerCommands('http://127.0.0.1:8787/', 'TOK');
    assert.ok(plan.ok);
    assert.deepEqual(plan.steps, [
      `curl -fsSL 'http://127.0.0.1:8787/runner/install.sh' -o install.sh`,
      `sh install.sh --dir './service-runner'`,
      `'./service-runner'/runner configure --url 'http://127.0.0.1:8787' --token "$TOK"`,
      `'./service-runner'/runner run`,
    ]);
    assert.equal(plan.line, plan.steps.join(' && '));
    assert.doesNotMatch(plan.line, /\|\s*sh\b/, 'never piped into sh');
    assert.doesNotMatch(plan.line, /\n/, 'one line: nothing runs before the user presses Enter');
  });

  it('refuses a base URL with control characters (a Ctrl-U would erase the typed line) or without a scheme', () => {
    const ctrlU = runnerCommands('http://127.0.0.1:8787/\u0015; rm -rf ~');
    assert.ok(!ctrlU.ok && /control character/.test(ctrlU.problem));
    assert.ok(!runnerCommands('127.0.0.1:8787').ok);
    assert.ok(!runnerCommands('http://h', 'BAD NAME').ok);
  });

  it('quotes what it types: a quote in the URL stays data', () => {
    const plan = runnerCommands("http://127.0.0.1:8787/a'b");
    assert.ok(plan.ok);
    assert.match(plan.line, /'http:\/\/127\.0\.0\.1:8787\/a'\\''b'/);
    const echoed = execFileSync('sh', ['-c', `printf %s ${shq("it's $HOME `x`")}`], { encoding: 'utf8' });
    assert.equal(echoed, "it's $HOME `x`");
  });
});
