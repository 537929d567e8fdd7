// Input checks (src/core/input): webhook URLs, secret names, the service base URL (control
// characters refused) and owner/repo names (../x and ./x refused before any path is built).
import { strict as assert } from 'node:assert';
import { baseUrlProblem, validateRepoText, validateSecretName, validateWebhookUrl } from '../../../../src/core/input';

describe('input validation', () => {
  it('webhook URLs', () => {
    assert.equal(validateWebhookUrl('http://127.0.0.1:8788/hooks/default'), undefined);
    assert.ok(validateWebhookUrl('ftp://x/y'));
    assert.ok(validateWebhookUrl('example.com/hook'));
    assert.ok(validateWebhookUrl(''));
  });
  it('secret names', () => {
    assert.equal(validateSecretName('DEPLOY_KEY'), undefined);
    assert.ok(validateSecretName('1ABC'));
    assert.ok(validateSecretName('has-dash'));
    assert.ok(validateSecretName('SERVICE_TOKEN'));
    assert.ok(validateSecretName(''));
  });
});

describe('service base URL', () => {
  it('accepts http(s) addresses, says what is wrong with others', () => {
    assert.equal(baseUrlProblem('http://127.0.0.1:8787'), undefined);
    assert.equal(baseUrlProblem('https://service.example/prefix'), undefined);
    assert.match(baseUrlProblem('127.0.0.1:8787')!, /not an http\(s\) address: write it as http:\/\/127\.0\.0\.1:8787/);
    assert.match(baseUrlProblem('localhost:8787')!, /write it as http:\/\/localhost:8787/);
    assert.match(baseUrlProblem('ftp://x')!, /not an http\(s\) address/);
    assert.match(baseUrlProblem('http://u:p@host')!, /user name or password/);
    assert.match(baseUrlProblem('')!, /empty/);
  });
  it('refuses control characters (a Ctrl-U would erase a terminal line)', () => {
    assert.match(baseUrlProblem('http://127.0.0.1:8787/\u0015rm -rf x\n')!, /control character/);
    assert.match(baseUrlProblem('http://127.0.0.1:8787\u007f')!, /control character/);
  });
});

describe('owner/repo input', () => {
  it("follows the service's name rules: ../x and ./x are refused before any path is built", () => {
    assert.equal(validateRepoText('acme/widgets'), undefined);
    assert.match(validateRepoText('../x')!, /"\.\." is not a name/);
    assert.match(validateRepoText('acme/.')!, /"\." is not a name/);
    assert.ok(validateRepoText('a/b/c'));
    assert.ok(validateRepoText('acme/wid gets'));
    assert.ok(validateRepoText(`acme/${'x'.repeat(101)}`));
  });
});
