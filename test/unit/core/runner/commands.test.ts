import { strict as assert } from 'node:assert';
import { runnerCommands } from '../../../../src/core/runner';

describe('runner set-up commands', () => {
  it('runner commands use the base URL and read the token from the environment', () => {
    const lines = runnerCommands('http://127.0.0.1:8787/', 'TOK');
    assert.equal(lines[0], `curl -fsSL 'http://127.0.0.1:8787/runner/install.sh' | sh`);
    assert.match(lines[1]!, /configure --url 'http:\/\/127\.0\.0\.1:8787' --token "\$TOK"/);
    assert.equal(lines[2], 'runner run');
  });
});
