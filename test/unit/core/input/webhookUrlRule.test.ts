// Add Webhook's URL step and the service (emulator) apply one rule (src/core/net/webhookUrl.ts):
// every URL the input box accepts the emulator creates a webhook for, and every URL it refuses the
// emulator answers 400 for. Real HTTP to the emulator on 127.0.0.1.
import { strict as assert } from 'node:assert';
import { startEmulator, type EmulatorServer } from '../../../../relay/emulator';
import { validateWebhookUrl } from '../../../../src/core/input';
import { webhookUrlProblem } from '../../../../src/core/net/webhookUrl';

const TOKEN = 'url-rule-token-8f2a';
const REFUSED = [
  'http://0.0.0.0:3000/',
  'http://0.0.0.0/',
  'http://169.254.169.254/latest/meta-data',
  'http://[fe80::1]:8080/',
  'http://[::]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[fd00:ec2::254]/',
  'ftp://example.com/hook',
  'http:/example.com/hook',
  'example.com/hook',
  'http://example.com/a b',
];
const ACCEPTED = [
  'http://127.0.0.1:3000/webhook',
  'https://example.com/hook',
  'http://localhost:8788/hooks/default',
  'http://[::1]:3000/',
  'http://10.0.0.5/hook',
];

describe("webhook URL rule: the editor's URL step = the service's validation", function () {
  this.timeout(30_000);
  let emulator: EmulatorServer;
  before(async () => (emulator = await startEmulator({ port: 0, host: '127.0.0.1', token: TOKEN })));
  after(() => emulator.close());
  const create = async (url: string) => {
    const res = await fetch(`${emulator.url.replace(/\/+$/, '')}/api/v1/repos/acme/rule/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, content_type: 'json', events: ['push'] }),
    });
    return { status: res.status, body: await res.text() };
  };

  it('refuses what the service refuses, as you type (0.0.0.0, link-local, unspecified, metadata, no scheme, no host)', async () => {
    for (const url of REFUSED) {
      const problem = validateWebhookUrl(url);
      assert.ok(problem, `the URL step accepts ${url}`);
      const answer = await create(url);
      assert.equal(answer.status, 400, `the service answers ${answer.status} for ${url}: ${answer.body}`);
    }
    assert.match(validateWebhookUrl('http://0.0.0.0:3000/')!, /^The service refuses this address: 0\.0\.0\.0 is an unspecified address/);
    assert.match(validateWebhookUrl('http://169.254.169.254/')!, /link-local/);
    assert.equal(validateWebhookUrl('example.com/hook'), 'Enter an absolute URL, for example https://example.com/webhook');
  });

  it('accepts what the service accepts', async () => {
    for (const url of ACCEPTED) {
      assert.equal(validateWebhookUrl(url), undefined, url);
      assert.equal(webhookUrlProblem(url), undefined, url);
      const answer = await create(url);
      assert.equal(answer.status, 201, `the service answers ${answer.status} for ${url}: ${answer.body}`);
    }
  });
});
