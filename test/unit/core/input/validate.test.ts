import { strict as assert } from 'node:assert';
import { validateSecretName, validateWebhookUrl } from '../../../../src/core/input';

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
