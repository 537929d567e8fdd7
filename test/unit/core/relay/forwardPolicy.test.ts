// The forwarding rules every forwarder shares (src/core/relay/forwardPolicy.ts): which answers are
// delivered, final or retried, Retry-After parsed and capped, the retry schedule and its time
// scale, waits in words, and the Relay view's summary of an app's answer.
import { strict as assert } from 'node:assert';
import {
  classify,
  errorCode,
  inWords,
  MAX_RETRY_AFTER_MS,
  nextRetryDelay,
  parseRetryAfter,
  retrySchedule,
  scheduledDelay,
  scaledWait,
} from '../../../../src/core/relay/forwardPolicy';
import { RETRY_SCHEDULE_MS } from '../../../../src/core/defaults';
import { forwardSummary } from '../../../../src/core/tree';
import { SUBSCRIBER_TARGET } from '../../../../src/core/relay/protocol';

describe('forwarding rules (src/core/relay/forwardPolicy)', () => {
  it('2xx is delivered; 4xx other than 408/429 (and 3xx) is final; 5xx, 408, 429 are retried', () => {
    for (const s of [200, 202, 204, 299]) assert.equal(classify({ status: s }), 'delivered', String(s));
    for (const s of [400, 401, 403, 404, 410, 422, 301, 304]) assert.equal(classify({ status: s }), 'final', String(s));
    for (const s of [408, 429, 500, 502, 503, 504, 599]) assert.equal(classify({ status: s }), 'retry', String(s));
  });

  it('no answer: refused, reset or DNS is unreachable; a time-out or anything else is retried', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']) {
      assert.equal(classify({ error: `${code}: connect ${code} 127.0.0.1:1` }), 'unreachable', code);
    }
    assert.equal(classify({ error: 'ETIMEDOUT: no complete answer within 10000 ms' }), 'retry');
    assert.equal(classify({ error: 'no complete answer within 10000 ms' }), 'retry');
    assert.equal(errorCode('ECONNREFUSED: x'), 'ECONNREFUSED');
    assert.equal(errorCode('HTTP 500'), undefined);
  });

  it('Retry-After: seconds or an HTTP date, capped, malformed ignored', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0, 'a date in the past: at once');
    assert.equal(parseRetryAfter('999999', now), MAX_RETRY_AFTER_MS);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter('-5', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter('', now), undefined);
    assert.equal(parseRetryAfter(['7', '9'], now), 7_000, 'repeated headers: the first');
    assert.equal(parseRetryAfter('120', now, 30_000), 30_000, "a caller's own cap (the service client's)");
  });

  it("the schedule: the service's 1, 5, 30 minutes after the first attempt, then given up; Retry-After replaces one wait", () => {
    assert.deepEqual(RETRY_SCHEDULE_MS, [0, 60_000, 300_000, 1_800_000]);
    assert.equal(nextRetryDelay(1), 60_000);
    assert.equal(nextRetryDelay(2), 300_000);
    assert.equal(nextRetryDelay(3), 1_800_000);
    assert.equal(nextRetryDelay(4), undefined, 'four attempts in all');
    assert.equal(nextRetryDelay(1, { retryAfterMs: 7000 }), 7000);
    assert.equal(nextRetryDelay(4, { retryAfterMs: 7000 }), undefined, 'Retry-After does not extend the schedule');
    assert.equal(nextRetryDelay(1, { schedule: [0, 10, 20] }), 10);
    assert.equal(scheduledDelay(0), 0, 'schedule[0]: the wait before the first attempt');
    assert.equal(scheduledDelay(3, [0, 10, 20]), undefined, 'used up');
  });

  it("the retry schedule is the one given, else the service's", () => {
    assert.deepEqual(retrySchedule(), RETRY_SCHEDULE_MS);
    assert.deepEqual(retrySchedule([]), RETRY_SCHEDULE_MS);
    assert.deepEqual(retrySchedule([0, 5]), [0, 5]);
  });

  it('timeScale is a speed-up factor: it divides the wait; Infinity makes it 0', () => {
    assert.equal(scaledWait(60_000, 1000), 60);
    assert.equal(scaledWait(60_000), 60_000);
    assert.equal(scaledWait(3_600_000, Infinity), 0);
  });

  it('waits in words', () => {
    assert.equal(inWords(60_000), 'in 1 min');
    assert.equal(inWords(40_000), 'in 40 s');
    assert.equal(inWords(200), 'now');
  });

  it("a Relay view row shows the app's answer: → 400 refused, → 500 · retrying, → 200", () => {
    const row = (status: 'ok' | 'failed' | 'pending', lastStatus?: number) =>
      forwardSummary({
        seq: 1,
        channel: 'dev',
        receivedAt: '',
        verification: 'verified',
        size: 2,
        forward: [{ target: SUBSCRIBER_TARGET, status, attempts: 1, ...(lastStatus ? { lastStatus } : {}) }],
      });
    assert.equal(row('failed', 400), '→ 400 (subscriber)');
    assert.equal(row('pending', 500), '→ 500 · retrying (subscriber)');
    assert.equal(row('ok', 200), '→ 200 (subscriber)');
    assert.equal(row('failed'), '→ failed (subscriber)');
  });
});
