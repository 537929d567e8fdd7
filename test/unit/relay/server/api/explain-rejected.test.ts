// GET /api/deliveries/<seq> of a rejected delivery carries the signature doctor's findings, run by
// the relay with the channel's secret (so Explain Signature on a relay row needs no secret), and
// whether its signature verifies now (issue 36 item 15: the editor retries it at the service only then).
import { strict as assert } from 'node:assert';
import { RelayApi } from '../../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import type { RelayDelivery } from '../../../../../src/core/relay/protocol';
import { post, signed, tempDir } from '../../support/helpers';

const SECRET = 'explain-rejected-secret-0123';

describe("relay: the doctor's explanation of a rejected delivery", function () {
  this.timeout(30_000);
  let relay: RelayServer;
  beforeEach(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET] });
  });
  afterEach(() => relay.close());
  const detail = async (seq: number) =>
    (await (await fetch(`${relay.url}/api/deliveries/${seq}`, { headers: { authorization: `Bearer ${relay.token}` } })).json()) as RelayDelivery;

  it('says why the signature did not match (a newline added after signing), never the secret; a verified delivery has no explanation', async () => {
    const body = '{"action":"opened"}';
    const ok = await post(`${relay.url}/hooks/default`, body, signed(SECRET, body));
    assert.equal(ok.status, 200);
    const bad = await post(`${relay.url}/hooks/default`, body + '\n', signed(SECRET, body));
    assert.equal(bad.status, 401);
    const verified = await detail(1);
    assert.equal(verified.verification, 'verified');
    assert.equal(verified.explanation, undefined);
    const rejected = await detail(2);
    assert.equal(rejected.verification, 'rejected');
    assert.match(rejected.reason ?? '', /does not match/);
    assert.deepEqual(rejected.explanation, ['a trailing newline was added to the body after signing (the sender signed it without)']);
    assert.ok(!JSON.stringify(rejected).includes(SECRET));
  });

  it('a signature made with another secret: the doctor says the secret is most likely different', async () => {
    const body = '{"n":1}';
    assert.equal((await post(`${relay.url}/hooks/default`, body, signed('some-other-secret-456', body))).status, 401);
    const [finding] = (await detail(1)).explanation ?? [];
    assert.match(finding ?? '', /the secret is most likely different/);
  });

  it("says whether the signature verifies now: not before the channel gets the webhook's secret, then yes", async () => {
    const admin = new RelayApi({ baseUrl: relay.url, token: relay.token });
    await admin.createChannel({ name: 'bob', secrets: ['bob-channel-secret-0123'] });
    const body = '{"n":2}';
    assert.equal((await post(`${relay.url}/hooks/bob`, body, signed('bob-webhook-secret-456', body))).status, 401);
    assert.equal((await detail(1)).signatureMatchesNow, false);
    await admin.updateChannelSecrets('bob', { addSecrets: ['bob-webhook-secret-456'] });
    const d = await detail(1);
    assert.equal(d.signatureMatchesNow, true);
  });
});
