// Pins the seam the seams model found (test/unit/seams/): the signature doctor (the page's
// /page/explain/<seq> and the API detail's `explanation`) checks a rejected delivery with the
// secrets of the channel it came to, never with those of a later channel that took its name.
import { strict as assert } from 'node:assert';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { post, signed, tempDir } from '../../support/helpers';
import { call } from '../../support/publicHelpers';
import { signIn, call as pageCall } from '../../../page/pageHelpers';

const FIRST = 'first-alice-secret-0123456789';
const SECOND = 'second-alice-secret-0123456789';

describe('the signature doctor and channel identity', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  beforeEach(async () => (relay = await startRelay({ port: 0, dataDir: tempDir() })));
  afterEach(async () => relay?.close());

  const create = async (secret: string) => {
    const r = await call('POST', `${relay.url}/api/channels`, relay.token, { name: 'alice', secrets: [secret] });
    assert.equal(r.status, 201, JSON.stringify(r.json));
  };

  it("a re-created channel's secret does not pass an earlier channel's rejected delivery", async () => {
    await create(FIRST);
    const body = '{"n":1}';
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(SECOND, body))).status, 401);
    const seq = relay.store.lastSeq;
    assert.equal((await call('DELETE', `${relay.url}/api/channels/alice`, relay.token)).status, 204);
    await create(SECOND); // a new channel alice, whose secret is the one the old delivery was signed with

    const page = await signIn(relay, relay.token);
    const doctor = await pageCall(`${relay.url}/page/explain/${seq}`, 'GET', page.headers);
    assert.equal(doctor.status, 200);
    assert.equal(doctor.json.ok, false, `the page's doctor said ${JSON.stringify(doctor.json)}`);
    assert.match(String(doctor.json.findings), /no longer exists/);

    const detail = await call('GET', `${relay.url}/api/deliveries/${seq}`, relay.token);
    assert.equal(detail.status, 200);
    assert.match(String(detail.json.explanation), /no longer exists/, `the API's explanation: ${JSON.stringify(detail.json.explanation)}`);
  });

  it('a rotated secret still explains the same channel (its current secrets)', async () => {
    await create(FIRST);
    const body = '{"n":2}';
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(SECOND, body))).status, 401);
    const seq = relay.store.lastSeq;
    assert.equal((await call('PATCH', `${relay.url}/api/channels/alice`, relay.token, { secrets: [SECOND] })).status, 200);
    const detail = await call('GET', `${relay.url}/api/deliveries/${seq}`, relay.token);
    assert.match(String(detail.json.explanation), /secret was changed after the delivery came in/);
    const page = await signIn(relay, relay.token);
    assert.equal((await pageCall(`${relay.url}/page/explain/${seq}`, 'GET', page.headers)).json.ok, true);
  });
});
