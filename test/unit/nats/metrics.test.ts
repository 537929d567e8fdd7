// GET /metrics on a relay process whose store is NATS JetStream (a real nats-server): the
// connection state, the publish-ack latency, the forward consumers' pending counts, and the same
// delivery and attempt counters as on the file store, moving with real deliveries; and its
// --log-format json lines.
import { strict as assert } from 'node:assert';
import { post, signed, within } from '../relay/support/helpers';
import { sample, scrape, scrapeUntil } from '../relay/support/metricsText';
import { relayOnNatsPerSuite } from './relayOnNats';

const SECRET = 'nats-metrics-secret-0123456789';
const ADMIN = 'nats-metrics-admin-token-0123456789';

describe('relay metrics on NATS JetStream (real nats-server, relay process)', function () {
  this.timeout(60_000);
  const running = relayOnNatsPerSuite(ADMIN, ['--secret', SECRET, '--log-format', 'json']);

  it('reports the connection, publish-ack latency, consumer pending and the counters', async () => {
    const { nats, relay, app } = running();
    const metricsUrl = `${relay.url}/metrics`;
    const before = (await scrape(metricsUrl, ADMIN)).text;
    assert.equal(sample(before, 'relay_jetstream_connected'), 1);
    const body = '{"action":"opened"}';
    for (let i = 0; i < 3; i++) assert.equal((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).status, 200);
    // (It timed out once in CI, unexplained: each wait now says, before mocha's timeout, what it saw.)
    const log = () => `relay log (last 4,000 characters):\n${relay.stderr().slice(-4000)}`;
    await within(app.waitFor(3), 40_000, () => `the app got ${app.received.length} of 3 deliveries in 40 s\n${log()}`);
    // The attempts are acknowledged to the consumer after they are recorded: scrape until they show.
    let r = await scrapeUntil(
      metricsUrl,
      ADMIN,
      (text) => sample(text, 'relay_forward_attempts_total', { target: app.url, outcome: 'ok' }) >= 3,
      '3 ok forward attempts counted',
      log,
    );
    assert.equal(r.status, 200);
    const moved = (name: string, labels: Record<string, string> = {}) => sample(r.text, name, labels) - sample(before, name, labels);
    assert.equal(moved('relay_deliveries_received_total', { channel: 'default', verification: 'verified' }), 3);
    assert.equal(moved('relay_jetstream_publish_ack_seconds_count'), 3);
    assert.equal(moved('relay_forward_attempts_total', { target: app.url, outcome: 'ok' }), 3);
    const target = app.url.replace(/[.]/g, '\\.');
    assert.match(r.text, new RegExp(`relay_jetstream_consumer_pending\\{target="${target}"\\} 0`));
    assert.match(r.text, new RegExp(`relay_jetstream_consumer_ack_pending\\{target="${target}"\\} \\d`));
    assert.equal(sample(r.text, 'relay_jetstream_connected'), 1);
    assert.doesNotMatch(r.text, /relay_journal_append_seconds/);

    // The NATS server goes away: the connection gauge says so.
    await nats.nodes[0]!.kill();
    r = await scrapeUntil(
      metricsUrl,
      ADMIN,
      (text) => sample(text, 'relay_jetstream_connected') === 0,
      'relay_jetstream_connected 0 once the server is killed',
      log,
    );

    // --log-format json on JetStream: every stderr line is one JSON object, the store's lines included.
    const lines = relay
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { time: string; level: string; msg: string });
    assert.ok(
      lines.some((l) => /^store: created JetStream stream/.test(l.msg)),
      relay.stderr(),
    );
    assert.ok(lines.every((l) => l.time && l.level && l.msg));
    assert.ok(!relay.stderr().includes(ADMIN) && !relay.stderr().includes(SECRET));
  });
});
