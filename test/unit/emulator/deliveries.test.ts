// The delivery engine on real sockets: headers and signature on the exact bytes, only subscribed
// events, the §8 retry schedule (asserted from the recorded schedule, not wall time), ping,
// manual retry, a hanging receiver cut off by the time-out, and bounded concurrency.
import { strict as assert } from 'node:assert';
import { createServer, type ServerResponse } from 'node:http';
import { verify } from '../../../src/core/signing';
import { samplePayload } from '../../../src/core/events';
import { RETRY_SCHEDULE_MS } from '../../../relay/emulator';
import { addHook, fire, start, startReceiver, type Harness, type Receiver } from './helpers';

const REPO = 'acme/widgets';
const SCALE = 60_000; // one minute → 1 ms

describe('emulator delivery engine', () => {
  let h: Harness | undefined;
  const receivers: Receiver[] = [];
  const receiver = async (mode: number | 'hang' = 200) => {
    const r = await startReceiver(mode);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await h?.close();
    h = undefined;
    for (const r of receivers.splice(0)) await r.close();
  });

  it('POSTs the payload with the documented headers, signed on the exact bytes', async () => {
    const rx = await receiver(200);
    h = await start({ timeScale: SCALE });
    const w = await addHook(h, REPO, rx.url, ['push'], 'hook-secret');
    const [d] = await fire(h, REPO, 'push');
    const record = await h.attemptsOf(d!.id, 1);
    assert.equal(rx.received.length, 1);
    const got = rx.received[0]!;
    assert.equal(got.path, '/hook');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], 'service-hooks-emulator');
    assert.equal(got.headers['x-service-event'], 'push');
    assert.equal(got.headers['x-service-delivery'], d!.id);
    assert.deepEqual(verify(got.body, got.headers['x-service-signature'] as string, ['hook-secret']), { ok: true, index: 0 });
    assert.deepEqual(verify(got.body, got.headers['x-service-signature'] as string, ['other']), { ok: false, reason: 'mismatch' });
    const payload = JSON.parse(got.body.toString('utf8'));
    assert.equal(payload.event, 'push');
    assert.equal(payload.repository.full_name, REPO);
    assert.equal(payload.repository.url, `${h.url}/${REPO}`);

    assert.equal(record.success, true);
    assert.equal(record.status, 200);
    assert.equal(record.webhook_id, w.id);
    assert.equal(record.next_attempt_at, null);
    assert.equal(record.redelivery, false);
    assert.match(record.delivered_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(record.attempts.length, 1);
    assert.equal(typeof record.attempts[0]!.duration_ms, 'number');

    const detail = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries/${d!.id}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.json.request.body, got.body.toString('utf8'), 'the recorded body is the sent bytes');
    assert.equal(detail.json.request.headers['X-Service-Signature'], got.headers['x-service-signature']);
    assert.equal(detail.json.request.headers['X-Service-Event'], 'push');
    assert.equal(detail.json.success, true);
    const list = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
    assert.deepEqual([list.json.total, list.json.successful, list.json.failed], [1, 1, 0]);
    assert.equal('request' in list.json.deliveries[0], false, 'the list has records without the request');
  });

  it('sends no signature header when the webhook has no secret, and a given payload byte for byte', async () => {
    const rx = await receiver(200);
    h = await start({ timeScale: SCALE });
    await addHook(h, REPO, rx.url, ['issue']);
    const payload = { event: 'issue', issue: { number: 7, title: 'Ünïcödé ✓', state: 'open' }, extra: [1, 2.5, null] };
    const [d] = await fire(h, REPO, 'issue', payload);
    await h.attemptsOf(d!.id, 1);
    assert.equal(rx.received[0]!.headers['x-service-signature'], undefined);
    assert.equal(rx.received[0]!.body.toString('utf8'), JSON.stringify(payload));
  });

  it('delivers an event only to the webhooks subscribed to it', async () => {
    const pushes = await receiver(200);
    const issues = await receiver(200);
    h = await start({ timeScale: SCALE });
    const wp = await addHook(h, REPO, pushes.url, ['push']);
    const wi = await addHook(h, REPO, issues.url, ['issue', 'comment']);
    await addHook(h, 'acme/other', pushes.url, ['issue']);
    const fired = await fire(h, REPO, 'issue');
    assert.deepEqual(
      fired.map((d) => d.webhook_id),
      [wi.id],
      'not the push-only hook, not another repository',
    );
    await h.attemptsOf(fired[0]!.id, 1);
    const [c] = await fire(h, REPO, 'comment');
    await h.attemptsOf(c!.id, 1);
    const [p] = await fire(h, REPO, 'push');
    await h.attemptsOf(p!.id, 1);
    assert.deepEqual(
      issues.received.map((r) => r.headers['x-service-event']),
      ['issue', 'comment'],
    );
    assert.deepEqual(
      pushes.received.map((r) => r.headers['x-service-event']),
      ['push'],
    );
    assert.equal((await h.api('GET', `/api/v1/webhooks/${wp.id}/deliveries`)).json.total, 1);
    // Changing the subscription changes what is delivered.
    await h.api('PATCH', `/api/v1/repos/${REPO}/webhooks/${wp.id}`, { events: ['issue'] });
    assert.deepEqual((await fire(h, REPO, 'push')).length, 0);
  });

  it('retries a failing delivery on the §8 schedule: 4 attempts, then 1, 5 and 30 minutes apart', async () => {
    const rx = await receiver(500);
    const clock = new Date(Date.UTC(2026, 10, 22, 20, 0, 0));
    h = await start({ timeScale: SCALE, now: () => clock });
    const w = await addHook(h, REPO, rx.url, ['push']);
    const [d] = await fire(h, REPO, 'push');
    const record = await h.attemptsOf(d!.id, 4);

    assert.deepEqual([...RETRY_SCHEDULE_MS], [0, 60_000, 300_000, 1_800_000]);
    const mine = h.scheduled.filter((s) => s.delivery_id === d!.id);
    assert.deepEqual(
      mine.map((s) => [s.attempt, s.delay_ms, s.scaled_delay_ms, s.next_attempt_at]),
      [
        [2, 60_000, 1, new Date(clock.getTime() + 1).toISOString()],
        [3, 300_000, 5, new Date(clock.getTime() + 5).toISOString()],
        [4, 1_800_000, 30, new Date(clock.getTime() + 30).toISOString()],
      ],
    );
    assert.equal(rx.received.length, 4);
    assert.ok(
      rx.received.every((r) => r.headers['x-service-delivery'] === d!.id),
      'one delivery, four attempts',
    );
    assert.equal(record.success, false);
    assert.equal(record.status, 500);
    assert.equal(record.next_attempt_at, null, 'no fifth attempt is due');
    assert.deepEqual(
      record.attempts.map((a) => [a.success, a.status, a.at]),
      Array(4).fill([false, 500, '2026-11-22T20:00:00Z']),
    );
    const list = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
    assert.deepEqual([list.json.total, list.json.successful, list.json.failed], [1, 0, 1]);
    assert.equal(list.json.deliveries[0].attempts.length, 4);
  });

  it('stops retrying once an attempt succeeds', async () => {
    const rx = await receiver(503);
    h = await start({ timeScale: SCALE });
    await addHook(h, REPO, rx.url, ['push']);
    h.signal.until(() => rx.received.length >= 2).then(() => (rx.mode = 200)); // third attempt succeeds
    const [d] = await fire(h, REPO, 'push');
    const record = await h.attemptsOf(d!.id, 3);
    assert.deepEqual(
      record.attempts.map((a) => a.status),
      [503, 503, 200],
    );
    assert.equal(record.success, true);
    assert.equal(record.next_attempt_at, null);
    assert.equal(h.scheduled.filter((s) => s.delivery_id === d!.id).length, 2);
  });

  it('records a network error as status null with the reason, and retries it', async () => {
    const rx = await receiver(200);
    const deadUrl = rx.url;
    await rx.close();
    receivers.pop();
    h = await start({ timeScale: SCALE });
    await addHook(h, REPO, deadUrl, ['push']);
    const [d] = await fire(h, REPO, 'push');
    const record = await h.attemptsOf(d!.id, 4);
    assert.equal(record.status, null);
    assert.match(record.error!, /ECONNREFUSED/);
    assert.ok(record.attempts.every((a) => a.status === null && /ECONNREFUSED/.test(a.error!)));
  });

  it('ping sends a ping delivery (202 with the record after its attempt)', async () => {
    const rx = await receiver(200);
    h = await start({ timeScale: SCALE });
    const w = await addHook(h, REPO, rx.url, ['release'], 's3');
    const r = await h.api('POST', `/api/v1/webhooks/${w.id}/ping`);
    assert.equal(r.status, 202);
    assert.equal(r.json.event, 'ping');
    assert.equal(r.json.webhook_id, w.id);
    assert.equal(r.json.success, true);
    assert.equal(r.json.attempts.length, 1);
    assert.equal(rx.received.length, 1);
    const got = rx.received[0]!;
    assert.equal(got.headers['x-service-event'], 'ping');
    assert.ok(verify(got.body, got.headers['x-service-signature'] as string, ['s3']).ok);
    assert.equal(JSON.parse(got.body.toString()).hook_id, w.id);
    const list = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
    assert.equal(list.json.deliveries[0].id, r.json.id);
  });

  it('retry adds an attempt to the same record (redelivery); 409 once it succeeded', async () => {
    const rx = await receiver(500);
    h = await start({ timeScale: 1 }); // the automatic retry is a minute away: only manual attempts run here
    const w = await addHook(h, REPO, rx.url, ['push'], 'sig');
    const [d] = await fire(h, REPO, 'push');
    const first = await h.attemptsOf(d!.id, 1);
    assert.ok(first.next_attempt_at, 'an automatic retry is scheduled');
    const path = `/api/v1/webhooks/${w.id}/deliveries/${d!.id}/retry`;

    const r1 = await h.api('POST', path);
    assert.equal(r1.status, 202);
    assert.equal(r1.json.id, d!.id);
    assert.equal(r1.json.attempts.length, 2);
    assert.equal(r1.json.redelivery, true);
    assert.equal(r1.json.success, false);
    assert.equal(r1.json.next_attempt_at, first.next_attempt_at, 'a failed manual attempt leaves the schedule as it was');

    rx.mode = 200;
    const r2 = await h.api('POST', path);
    assert.equal(r2.status, 202);
    assert.equal(r2.json.success, true);
    assert.equal(r2.json.status, 200);
    assert.equal(r2.json.attempts.length, 3);
    assert.equal(r2.json.next_attempt_at, null, 'a successful manual attempt ends the schedule');
    assert.equal(rx.received.length, 3);
    assert.ok(
      rx.received.every((r) => r.body.equals(rx.received[0]!.body)),
      'the same bytes each time',
    );
    assert.ok(verify(rx.received[2]!.body, rx.received[2]!.headers['x-service-signature'] as string, ['sig']).ok);

    const r3 = await h.api('POST', path);
    assert.equal(r3.status, 409);
    assert.match(r3.json.error, /succeeded/);
    const list = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
    assert.deepEqual([list.json.successful, list.json.failed], [1, 0]);
  });

  it('cuts off a hanging receiver after the delivery time-out and keeps delivering to the others', async () => {
    const hang = await receiver('hang');
    const ok = await receiver(200);
    h = await start({ timeScale: 1, deliveryTimeoutMs: 300, concurrency: 1 });
    const wh = await addHook(h, REPO, hang.url, ['push']);
    const wo = await addHook(h, REPO, ok.url, ['push']);
    const fired = await fire(h, REPO, 'push');
    const hungId = fired.find((d) => d.webhook_id === wh.id)!.id;
    const okId = fired.find((d) => d.webhook_id === wo.id)!.id;
    await hang.signal.until(() => hang.received.length === 1, 'the hanging receiver got the request');
    assert.equal((await h.api('GET', `/api/v1/repos/${REPO}/webhooks`)).status, 200, 'the API answers meanwhile');
    const hung = await h.attemptsOf(hungId, 1);
    assert.equal(hung.status, null);
    assert.equal(hung.error, 'timed out after 300 ms');
    assert.ok(hung.next_attempt_at, 'a timed-out attempt is retried later');
    const good = await h.attemptsOf(okId, 1);
    assert.equal(good.success, true, 'the queue moved on with its single slot');
  });

  it('counts a receiver that answers 200 and then stalls its body as delivered, and frees the slot', async () => {
    const stalled: ServerResponse[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial'); // never ended
        stalled.push(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      h = await start({ timeScale: 1, deliveryTimeoutMs: 200, concurrency: 1 });
      await addHook(h, REPO, `http://127.0.0.1:${(server.address() as { port: number }).port}/`, ['push']);
      const ok = await receiver(200);
      await addHook(h, REPO, ok.url, ['push']);
      const fired = await fire(h, REPO, 'push');
      const first = await h.attemptsOf(fired[0]!.id, 1);
      assert.deepEqual([first.success, first.status], [true, 200]);
      assert.equal((await h.attemptsOf(fired[1]!.id, 1)).success, true, 'the single slot was released');
    } finally {
      for (const r of stalled) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('runs at most `concurrency` attempts at once; the rest wait for a slot', async () => {
    const hang = await receiver('hang');
    const ok = await receiver(200);
    h = await start({ timeScale: 1, deliveryTimeoutMs: 60_000, concurrency: 2, replyWaitMs: 50 });
    for (let i = 0; i < 3; i++) await addHook(h, REPO, hang.url, ['push']);
    const other = await addHook(h, REPO, ok.url, ['issue']);
    await fire(h, REPO, 'push');
    await hang.signal.until(() => hang.received.length === 2, 'two attempts in flight');
    // Both slots are held by hanging receivers: the ping waits in the queue, so after replyWaitMs
    // it answers with the record and no attempt yet.
    const ping = await h.api('POST', `/api/v1/webhooks/${other.id}/ping`);
    assert.equal(ping.status, 202);
    assert.deepEqual([ping.json.attempts.length, ping.json.success, ping.json.status], [0, false, null]);
    assert.ok(ping.json.next_attempt_at, 'its first attempt is still due');
    assert.equal(ok.received.length, 0);
    assert.equal(hang.received.length, 2, 'the third push waits for a slot too');
  });

  it('deleting a webhook drops its deliveries and pending retries', async () => {
    const rx = await receiver(500);
    h = await start({ timeScale: 1 });
    const w = await addHook(h, REPO, rx.url, ['push']);
    const [d] = await fire(h, REPO, 'push');
    await h.attemptsOf(d!.id, 1);
    assert.equal((await h.api('DELETE', `/api/v1/repos/${REPO}/webhooks/${w.id}`)).status, 204);
    assert.equal((await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`)).status, 404);
    assert.equal((await h.api('POST', `/api/v1/webhooks/${w.id}/deliveries/${d!.id}/retry`)).status, 404);
  });

  it('keeps at most maxDeliveriesPerWebhook deliveries, dropping the oldest finished ones first', async () => {
    const rx = await receiver(200);
    h = await start({ timeScale: 1, maxDeliveriesPerWebhook: 3 });
    const w = await addHook(h, REPO, rx.url, ['push']);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const [d] = await fire(h, REPO, 'push');
      await h.attemptsOf(d!.id, 1);
      ids.push(d!.id);
    }
    const list = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
    assert.deepEqual(
      list.json.deliveries.map((d: { id: string }) => d.id),
      [ids[4], ids[3], ids[2]],
    );
    assert.equal(list.json.total, 3);
    assert.equal((await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries/${ids[0]}`)).status, 404);

    rx.mode = 500; // failures keep a retry due (a minute away): those are not dropped
    const failing: string[] = [];
    for (let i = 0; i < 4; i++) {
      const [d] = await fire(h, REPO, 'push');
      await h.attemptsOf(d!.id, 1);
      failing.push(d!.id);
    }
    const after = await h.api('GET', `/api/v1/webhooks/${w.id}/deliveries`);
    assert.deepEqual(
      after.json.deliveries.map((d: { id: string }) => d.id),
      [...failing].reverse(),
    );
  });

  it('uses the sample payload builder for events fired without a payload', async () => {
    const rx = await receiver(200);
    const clock = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    h = await start({ timeScale: SCALE, now: () => clock });
    await addHook(h, REPO, rx.url, ['pull_request']);
    const [d] = await fire(h, REPO, 'pull_request');
    await h.attemptsOf(d!.id, 1);
    const expected = samplePayload('pull_request', { owner: 'acme', repo: 'widgets', baseUrl: h.url, now: clock });
    assert.deepEqual(JSON.parse(rx.received[0]!.body.toString()), expected);
  });
});
