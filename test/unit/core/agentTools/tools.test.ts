// Pins the agent tools' shared contract: package.json's languageModelTools mirror the core
// definitions, inputs are checked again in code with sentences that say what to give, and results
// never carry a secret the host holds.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOLS, validateInput } from '../../../../src/core/agentTools';
import { scrub } from '../../../../src/core/agentTools/format';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8'));
const tool = (name: string) => TOOLS.find((t) => t.name === `serviceHooks_${name}`)!;

describe('agent tools: definitions, input checks, scrubbing', () => {
  it("package.json's languageModelTools are the core definitions (name, title, description, schema)", () => {
    const declared: { name: string; displayName: string; modelDescription: string; inputSchema: unknown; toolReferenceName: string }[] =
      pkg.contributes.languageModelTools;
    assert.deepEqual(
      declared.map((d) => ({ name: d.name, title: d.displayName, description: d.modelDescription, inputSchema: d.inputSchema })),
      TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema })),
    );
    for (const d of declared) assert.match(d.toolReferenceName, /^[A-Za-z]+$/);
  });

  it('ten tools: five read, five act', () => {
    assert.equal(TOOLS.length, 10);
    assert.equal(TOOLS.filter((t) => t.acting).length, 5);
  });

  it('checks inputs against the schema and the rules a schema cannot say', () => {
    const bad: [string, unknown, RegExp][] = [
      ['listDeliveries', {}, /give either webhookId or channel/],
      ['listDeliveries', { webhookId: '1', channel: 'default' }, /give either webhookId or channel/],
      ['listDeliveries', { channel: 'a..b' }, /channel must be/],
      ['listDeliveries', { webhookId: '1', limit: 500 }, /limit must be at most 50/],
      ['getDelivery', { seq: 0 }, /seq must be at least 1/],
      ['getDelivery', { seq: 1, webhookId: '1' }, /not both/],
      ['getDelivery', { webhookId: '1' }, /give seq .* or webhookId and deliveryId/],
      ['sendSampleEvent', { channel: 'default', event: 'deploy' }, /event must be one of push, pull_request/],
      ['lintWorkflow', { path: '../../etc/passwd' }, /inside the workspace/],
      ['lintWorkflow', {}, /path is required/],
      ['pingWebhook', { webhookId: '1', secret: 'x' }, /unknown input "secret"/],
      ['listWebhooks', { repo: 'no-slash' }, /repo has the wrong form/],
      ['listWebhooks', 'text', /input must be an object/],
    ];
    for (const [name, input, error] of bad) {
      const r = validateInput(tool(name), input);
      assert.ok(!r.ok, `${name} ${JSON.stringify(input)} accepted`);
      assert.match(r.error, error);
      assert.match(r.error, new RegExp(`^Invalid input for serviceHooks_${name}: `));
    }
    assert.ok(validateInput(tool('listDeliveries'), { channel: 'default', limit: 5 }).ok);
    assert.ok(validateInput(tool('getDelivery'), { webhookId: '1', deliveryId: 'd' }).ok);
    assert.ok(validateInput(tool('listWebhooks'), undefined).ok);
  });

  it('scrubs every held secret, wherever it appears, and cuts long text', () => {
    const out = scrub('token shc_abcdef1234 and again shc_abcdef1234; secret s3cr3t-value', ['shc_abcdef1234', 's3cr3t-value', '']);
    assert.equal(out, 'token <redacted> and again <redacted>; secret <redacted>');
    assert.match(scrub('x'.repeat(30_000), []), /… \(cut\)$/);
  });
});
