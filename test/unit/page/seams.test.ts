// Pins issue 36 items 4, 5, 6 and 8 for the page's channel-token holder: the live feed and the
// signature doctor scoped by channel identity, Replay to subscribers, filters on the relay, and
// per-token caps on sessions and live streams.
import { strict as assert } from 'node:assert';
import type { IncomingMessage } from 'node:http';
import { request, type Dispatcher } from 'undici';
import { startRelay, type RelayServer } from '../../../relay/server';
import { post, signed, startTarget, tempDir, type TargetApp } from '../relay/support/helpers';
import { MAX_STREAMS_PER_TOKEN } from '../../../relay/server/page/events';
import { MAX_SESSIONS, MAX_SESSIONS_PER_TOKEN, Sessions } from '../../../relay/server/page/sessions';
import { call, readEvents, signIn } from './pageHelpers';

const SECRET = 'page-seams-secret-0123456789';

describe('the page for a channel-token holder (issue 36 items 4-6, 8)', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  let operatorApp: TargetApp;
  const admin = () => ({ authorization: `Bearer ${relay.token}` });

  before(async () => {
    operatorApp = await startTarget();
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [`${operatorApp.url}/operator-only-path`] });
  });
  after(async () => {
    await relay?.close();
    await operatorApp?.close();
  });

  /** An API channel created over `name` (a name earlier deliveries used); its token. */
  async function channel(name: string): Promise<string> {
    const made = await call(`${relay.url}/api/channels`, 'POST', admin(), { name, secrets: [SECRET] });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    return String(made.json.token);
  }

  it("4: the live feed sends a channel token its own new deliveries, never an earlier channel's of that name", async () => {
    // An implicit channel 'alice' gets a delivery (forwarded to the operator's target), then an
    // API channel takes the name over: its token must see neither.
    const old = await post(`${relay.url}/hooks/alice`, '{"old":1}');
    assert.equal(old.status, 200);
    const token = await channel('alice');
    const { headers } = await signIn(relay, token);
    const body = '{"mine":1}';
    let mine = 0;
    const got = await readEvents(`${relay.url}/page/events?since=0`, headers, 1, async () => {
      const r = await post(`${relay.url}/hooks/alice`, body, signed(SECRET, body));
      assert.equal(r.status, 200);
      mine = (r.json as { seq: number }).seq;
    });
    assert.equal(got[0]!.event, 'delivery');
    assert.equal(got[0]!.seq, mine, `the feed sent ${got[0]!.data}`);
    assert.ok(!got[0]!.data.includes('operator-only-path'));
  });

  it("4: the signature doctor answers for the token's own rejected deliveries", async () => {
    await post(`${relay.url}/hooks/bob`, '{"old":1}');
    const token = await channel('bob');
    const { headers } = await signIn(relay, token);
    const body = '{"forged":1}';
    const r = await post(`${relay.url}/hooks/bob`, body, signed('another-secret-0123456789', body));
    assert.equal(r.status, 401);
    const seq = relay.store.lastSeq; // the rejected one, journaled
    const doctor = await call(`${relay.url}/page/explain/${seq}`, 'GET', headers);
    assert.equal(doctor.status, 200, JSON.stringify(doctor.json));
    assert.equal(doctor.json.ok, false);
    assert.ok((doctor.json.findings as string[]).length > 0);
    assert.ok(!JSON.stringify(doctor.json).includes(SECRET));
  });

  it('6: the delivery list filters over the whole channel: event, verification, forward outcome, part of a delivery id', async () => {
    const token = await channel('carol');
    const { headers } = await signIn(relay, token);
    for (let i = 0; i < 5; i++) {
      const body = `{"bad":${i}}`;
      const h = signed('another-secret-0123456789', body, { 'x-service-event': 'push', 'x-service-delivery': `carol-bad-${i}` });
      assert.equal((await post(`${relay.url}/hooks/carol`, body, h)).status, 401);
    }
    for (let i = 0; i < 60; i++) {
      const body = `{"good":${i}}`;
      const h = signed(SECRET, body, { 'x-service-event': i === 0 ? 'release' : 'ping', 'x-service-delivery': `carol-good-${i}` });
      assert.equal((await post(`${relay.url}/hooks/carol`, body, h)).status, 200);
    }
    const list = async (q: string) => {
      const r = await call(`${relay.url}/api/deliveries?${q.includes('limit=') ? '' : 'limit=50&'}${q}`, 'GET', headers);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      return (r.json.deliveries as { deliveryId?: string }[]).map((d) => d.deliveryId);
    };
    assert.deepEqual(await list('verification=rejected'), ['carol-bad-4', 'carol-bad-3', 'carol-bad-2', 'carol-bad-1', 'carol-bad-0']);
    assert.deepEqual(await list('event=release'), ['carol-good-0']);
    assert.deepEqual(await list('deliveryId=BAD-2'), ['carol-bad-2']);
    assert.equal((await list('forward=none')).length, 50, 'an API channel forwards nowhere itself');
    assert.deepEqual(await list('forward=ok'), []);
    assert.equal((await list(`verification=rejected&limit=2&before=${relay.store.lastSeq}`)).length, 2);
    const bad = await call(`${relay.url}/api/deliveries?forward=maybe`, 'GET', headers);
    assert.equal(bad.status, 400);
  });

  it("8: one token's sign-ins end only its own oldest session, never another token's", async () => {
    const other = await signIn(relay, await channel('dave'));
    const token = await channel('erin');
    const first = await signIn(relay, token);
    for (let i = 0; i < MAX_SESSIONS_PER_TOKEN; i++) await signIn(relay, token);
    assert.equal((await call(`${relay.url}/page/session`, 'GET', first.headers)).status, 401, "erin's oldest session ended");
    assert.equal((await call(`${relay.url}/page/session`, 'GET', other.headers)).status, 200, "dave's session stays");
  });

  it('8: 10,000 sign-ins of one token sign no other token out (the session store)', () => {
    const sessions = new Sessions();
    const kept = sessions.create('token-a')!;
    for (let i = 0; i <= MAX_SESSIONS; i++) assert.ok(sessions.create('token-b'));
    const req = { headers: { cookie: `${sessions.cookieName(false)}=${kept.id}`, 'x-page-key': kept.key } } as unknown as IncomingMessage;
    assert.equal(sessions.of(req, false)?.token, 'token-a');
  });

  it('8: one token holds a bounded number of live streams, and another token still gets one', async () => {
    const mine = await signIn(relay, await channel('frank'));
    const other = await signIn(relay, await channel('gina'));
    const events = `${relay.url}/page/events`;
    const open: Dispatcher.ResponseData[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS_PER_TOKEN; i++) {
        const r = await request(events, { headers: mine.headers });
        open.push(r);
        assert.equal(r.statusCode, 200);
      }
      const over = await request(events, { headers: mine.headers });
      open.push(over);
      assert.equal(over.statusCode, 429);
      assert.match(await over.body.text(), /close some tabs/);
      const theirs = await request(events, { headers: other.headers });
      open.push(theirs);
      assert.equal(theirs.statusCode, 200);
    } finally {
      for (const r of open) r.body.destroy();
    }
  });
});
