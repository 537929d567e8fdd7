// `relay --log-format json|text` (issue 23 §3): one JSON object per line with the fields that
// apply, text unchanged by default, and no token or secret in either format, from a real relay
// process that is given tokens and secrets to leak.
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import { relayLogger } from '../../../../relay/cli/relayLog';
import { post, signed, spawnRelay, startTarget, tempDir } from '../support/helpers';

const ADMIN = 'log-admin-token-0123456789abcdef';
const SECRET = 'weak-secret'; // under 16 bytes: the relay warns about it (the warning must not show it)
const CHANNEL_SECRET = 'channel-secret-0123456789abcdef';
const URL_PASSWORD = 'url-password-0123456789';

describe('relay log format', function () {
  this.timeout(60_000);

  it('json: time, level, msg and the fields given; text: relay: <msg>; both redact what they are told of, URL credentials and Bearer values', () => {
    const out: string[] = [];
    const json = relayLogger(
      'json',
      (t) => out.push(t),
      () => Date.UTC(2026, 0, 2, 3, 4, 5),
    );
    json.redact([SECRET, undefined, 'ab']);
    json.log(`forward: delivery 7 to http://u:${URL_PASSWORD}@h/x failed; secret ${SECRET}; Authorization: Bearer ${ADMIN}`, {
      level: 'error',
      seq: 7,
      channel: 'c1',
      target: `http://u:${URL_PASSWORD}@h/x`,
      status: 503,
      durationMs: 12.5,
    });
    json.log('warning: secret #1 of --secret has 11 bytes');
    json.log('plain', { channel: 'c2' });
    const lines = out
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines[0], {
      time: '2026-01-02T03:04:05.000Z',
      level: 'error',
      msg: 'forward: delivery 7 to http://[redacted]@h/x failed; secret [redacted]; Authorization: Bearer [redacted]',
      seq: 7,
      channel: 'c1',
      target: 'http://[redacted]@h/x',
      status: 503,
      durationMs: 12.5,
    });
    assert.equal(lines[1]!.level, 'warn');
    assert.deepEqual(Object.keys(lines[2]!), ['time', 'level', 'msg', 'channel']);
    assert.equal(out.length, 3, 'one write per line');

    const text: string[] = [];
    const t = relayLogger('text', (s) => text.push(s));
    t.redact([SECRET]);
    t.log(`secret ${SECRET} and https://x:${URL_PASSWORD}@h`, { seq: 1 });
    assert.deepEqual(text, ['relay: secret [redacted] and https://[redacted]@h\n']);
  });

  for (const format of ['json', 'text'] as const) {
    it(`a relay process with --log-format ${format} logs no token or secret`, async () => {
      const app = await startTarget();
      const relay = await spawnRelay(
        ['--data', tempDir(), '--secret', SECRET, '--forward', app.url.replace('http://', `http://user:${URL_PASSWORD}@`), '--log-format', format],
        { ...process.env, SERVICE_HOOKS_RELAY_TOKEN: ADMIN },
      );
      try {
        const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
        const made = await request(`${relay.url}/api/channels`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ name: 'team', secrets: [CHANNEL_SECRET] }),
        });
        const channel = (await made.body.json()) as { token: string };
        assert.equal(made.statusCode, 201);
        const body = '{"a":1}';
        assert.equal((await post(`${relay.url}/hooks/default`, body, signed(SECRET, body))).status, 200);
        assert.equal((await post(`${relay.url}/hooks/team`, body, signed(CHANNEL_SECRET, body))).status, 200);
        assert.equal((await post(`${relay.url}/hooks/team`, body, signed('wrong-secret-0123456789', body))).status, 401);
        await app.waitFor(1);
        const del = await request(`${relay.url}/api/channels/team`, { method: 'DELETE', headers: { authorization: `Bearer ${channel.token}` } });
        await del.body.dump();
        const delAdmin = await request(`${relay.url}/api/channels/team`, { method: 'DELETE', headers: auth });
        await delAdmin.body.dump();
        assert.equal(delAdmin.statusCode, 204);
        assert.equal(await relay.stop('SIGTERM'), 0);
        const err = relay.stderr();
        const lines = err.split('\n').filter(Boolean);
        assert.ok(lines.length >= 5, err); // weak-secret warning, created, deleted, stopping, stopped
        for (const leak of [ADMIN, SECRET, CHANNEL_SECRET, channel.token, URL_PASSWORD]) assert.ok(!err.includes(leak), `stderr shows ${leak}:\n${err}`);
        if (format === 'json') {
          const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
          for (const e of entries) assert.deepEqual(Object.keys(e).slice(0, 3), ['time', 'level', 'msg']);
          assert.ok(entries.some((e) => e.channel === 'team' && e.msg === "channel 'team' created"));
          assert.ok(entries.some((e) => e.level === 'warn' && String(e.msg).startsWith('warning: secret #1')));
          assert.equal(entries.at(-1)!.msg, 'stopped');
        } else {
          for (const l of lines) assert.match(l, /^relay: /);
          assert.ok(lines.includes("relay: channel 'team' created"));
        }
      } finally {
        await relay.stop('SIGKILL');
        await app.close();
      }
    });
  }

  it('refuses an unknown --log-format (exit 2)', async () => {
    await assert.rejects(spawnRelay(['--data', tempDir(), '--log-format', 'xml']), /--log-format must be one of text, json, got 'xml'/);
  });
});
