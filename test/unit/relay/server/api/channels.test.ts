// The channels API and channel tokens (relay/server/api/channelApi.ts) on a real relay process:
// create, list, delete (and across a restart), 400/409 refusals, a channel token confined to its
// channel with admin routes 403, RelayApi's channel calls, and `service-hooks channels`' exit codes.
import { strict as assert } from 'node:assert';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { isUsageError, type CliIO } from '../../../../../relay/cli/io';
import channelsCommand from '../../../../../relay/commands/channels';
import { subscribe } from '../../../../../relay/client/subscribe';
import { RelayApi, RelayApiError } from '../../../../../relay/client/api';
import { post, relayProcesses, signed, tempDir, type RelayProcess } from '../../support/helpers';
import { call, runCli, spawnRelayWith } from '../../support/publicHelpers';

const ALICE = 'alice-secret-0123456789';

/** The command's streams for an in-process run. */
function quietIo(): CliIO {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return { stdout: sink, stderr: sink, stdin: Readable.from([]), env: {}, cwd: process.cwd(), stopSignal: new AbortController().signal };
}
const BOB = 'bob-secret-0123456789ab';

describe('relay channels API and scoped channel tokens (real relay process)', function () {
  this.timeout(60_000);
  const procs = relayProcesses();
  async function start(args: string[], env: Record<string, string> = {}): Promise<RelayProcess> {
    const r = await spawnRelayWith(args, env);
    procs.push(r);
    return r;
  }
  const adminOf = (data: string) => readFileSync(join(data, 'token'), 'utf8').trim();

  it('creates a channel (201, URL under --public-url, token once), verifies with its secret, and keeps it across a restart', async () => {
    const data = tempDir();
    let relay = await start(['--data', data, '--public-url', 'https://relay.example.com/']);
    const admin = adminOf(data);
    const created = await call('POST', `${relay.url}/api/channels`, admin, { name: 'alice', secrets: [ALICE] });
    assert.equal(created.status, 201);
    assert.equal(created.json.name, 'alice');
    assert.equal(created.json.ingressUrl, 'https://relay.example.com/hooks/alice');
    const token: string = created.json.token;
    assert.match(token, /^shc_/);
    const file = join(data, 'channels.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!readFileSync(file, 'utf8').includes(token), 'channels.json holds no token');
    assert.doesNotMatch(relay.stdout() + relay.stderr(), new RegExp(token));

    const body = JSON.stringify({ hello: 'alice' });
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(ALICE, body))).status, 200);
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed('wrong-secret', body))).status, 401);
    assert.equal((await post(`${relay.url}/hooks/alice`, body)).status, 401, 'unsigned to a channel with a secret');

    await relay.stop('SIGTERM');
    relay = await start(['--data', data, '--public-url', 'https://relay.example.com']);
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(ALICE, body))).status, 200);
    const mine = await call('GET', `${relay.url}/api/deliveries`, token);
    assert.equal(mine.status, 200, 'the channel token survives the restart');
    assert.equal(mine.json.deliveries.length, 4);
    // The status a channel token sees names the public URL (the editor offers it in Add Webhook).
    const status = await call('GET', `${relay.url}/api/status`, token);
    assert.deepEqual(
      status.json.channels.map((c: { name: string; ingressUrl: string }) => [c.name, c.ingressUrl]),
      [['alice', 'https://relay.example.com/hooks/alice']],
    );
    const list = await call('GET', `${relay.url}/api/channels`, admin);
    assert.equal(list.status, 200);
    const alice = list.json.channels.find((c: { name: string }) => c.name === 'alice');
    assert.deepEqual(
      {
        source: alice.source,
        secrets: alice.secrets,
        received: alice.received,
        verified: alice.verified,
        rejected: alice.rejected,
        ingressUrl: alice.ingressUrl,
      },
      { source: 'api', secrets: 1, received: 4, verified: 2, rejected: 2, ingressUrl: 'https://relay.example.com/hooks/alice' },
    );
    assert.ok(!JSON.stringify(list.json).includes(token) && !JSON.stringify(list.json).includes(ALICE), 'no token or secret in the list');
  });

  it('refuses bad names and bodies with 400, a taken name with 409, and keeps serving', async () => {
    const data = tempDir();
    const cfg = join(data, 'relay.json');
    writeFileSync(cfg, JSON.stringify({ channels: { fixed: { secrets: ['s-fixed-0123456789'] } } }));
    const relay = await start(['--data', join(data, 'd'), '--config', cfg]);
    const admin = adminOf(join(data, 'd'));
    const url = `${relay.url}/api/channels`;
    const cases: [unknown, RegExp][] = [
      [{ name: '../x', secrets: ['s'] }, /name must be/],
      [{ name: '', secrets: ['s'] }, /name must be/],
      [{ name: 'a'.repeat(65), secrets: ['s'] }, /name must be/],
      [{ secrets: ['s'] }, /name must be/],
      [{ name: 'ok', secrets: 'nope' }, /secrets must be an array of non-empty strings/],
      [{ name: 'ok', secrets: [''] }, /secrets must be an array of non-empty strings/],
      [{ name: 'ok', secrets: [1] }, /secrets must be an array of non-empty strings/],
      [[1, 2], /body must be a JSON object/],
      ['{"name":', /JSON/],
      [{ name: 'ok', secrets: ['s'], extra: true }, /unknown field 'extra'/],
    ];
    for (const [body, message] of cases) {
      const r = await call('POST', url, admin, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.error, message);
    }
    assert.equal((await call('POST', url, admin, { name: 'twice', secrets: ['s1'] })).status, 201);
    for (const name of ['twice', 'default', 'fixed']) {
      const r = await call('POST', url, admin, { name, secrets: ['s2'] });
      assert.equal(r.status, 409, name);
      assert.match(r.json.error, new RegExp(`'${name}'`));
    }
    assert.equal((await call('DELETE', `${url}/fixed`, admin)).status, 409, 'a --config channel is not deleted through the API');
    assert.equal((await call('DELETE', `${url}/nobody`, admin)).status, 404);
    assert.equal((await call('GET', `${relay.url}/healthz`, undefined)).status, 200);
  });

  it('a channel token sees only its channel: deliveries, one delivery, replay, status and the stream; admin routes answer 403', async () => {
    const data = tempDir();
    const relay = await start(['--data', data]);
    const admin = adminOf(data);
    const aliceToken = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'alice', secrets: [ALICE] })).json.token as string;
    await call('POST', `${relay.url}/api/channels`, admin, { name: 'bob', secrets: [BOB] });

    const live: number[] = [];
    let wake = () => undefined as void;
    const sub = subscribe({
      url: relay.url.replace('http', 'ws'),
      token: aliceToken,
      since: 0,
      onDelivery: (d) => {
        live.push(d.seq);
        assert.equal(d.channel, 'alice');
        wake();
      },
    });
    const seqs: Record<string, number> = {};
    for (const [ch, secret] of [
      ['bob', BOB],
      ['alice', ALICE],
      ['bob', BOB],
    ] as const) {
      const body = JSON.stringify({ ch, n: Object.keys(seqs).length });
      const r = await post(`${relay.url}/hooks/${ch}`, body, signed(secret, body));
      assert.equal(r.status, 200);
      seqs[ch] = (r.json as { seq: number }).seq;
    }
    await new Promise<void>((r) => {
      wake = () => (live.length >= 1 ? r() : undefined);
      wake();
    });
    const mine = await call('GET', `${relay.url}/api/deliveries`, aliceToken);
    assert.deepEqual(
      mine.json.deliveries.map((d: { channel: string }) => d.channel),
      ['alice'],
    );
    assert.equal((await call('GET', `${relay.url}/api/deliveries?channel=bob`, aliceToken)).status, 403);
    assert.equal((await call('GET', `${relay.url}/api/deliveries/${seqs.alice}`, aliceToken)).status, 200);
    assert.equal((await call('GET', `${relay.url}/api/deliveries/${seqs.bob}`, aliceToken)).status, 404);
    assert.equal((await call('POST', `${relay.url}/api/deliveries/${seqs.bob}/replay`, aliceToken, {})).status, 404);
    const status = await call('GET', `${relay.url}/api/status`, aliceToken);
    assert.deepEqual(
      status.json.channels.map((c: { name: string }) => c.name),
      ['alice'],
    );
    assert.equal((await call('GET', `${relay.url}/api/channels/alice`, aliceToken)).status, 200);
    assert.equal((await call('GET', `${relay.url}/api/channels/bob`, aliceToken)).status, 404);
    for (const [method, path, body] of [
      ['GET', '/api/channels', undefined],
      ['POST', '/api/channels', { name: 'carol', secrets: ['c'] }],
      ['DELETE', '/api/channels/bob', undefined],
      ['POST', '/api/prune', { keep: 0 }],
      ['POST', `/api/deliveries/${seqs.alice}/replay`, { to: 'http://127.0.0.1:9/x' }],
    ] as const) {
      const r = await call(method, relay.url + path, aliceToken, body);
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.match(r.json.error, /admin token/);
    }
    // The admin token keeps full access.
    assert.equal((await call('GET', `${relay.url}/api/deliveries/${seqs.bob}`, admin)).status, 200);
    assert.equal((await call('GET', `${relay.url}/api/deliveries`, admin)).json.deliveries.length, 3);
    assert.deepEqual(live, [seqs.alice], 'the stream carried only alice');
    sub.close();
    await sub.closed;
    const wsBob = await new Promise<string>((resolve) => {
      const s = subscribe({
        url: relay.url.replace('http', 'ws'),
        token: aliceToken,
        channel: 'bob',
        onDelivery: () => undefined,
        onState: (st) => {
          if (st.state === 'reconnecting') {
            s.close();
            resolve(st.reason);
          }
        },
      });
    });
    assert.match(wsBob, /403/);
  });

  it('deleting a channel: 204, its token then gets 401 (API and stream), its URL 404, and it is gone after a restart', async () => {
    const data = tempDir();
    let relay = await start(['--data', data]);
    const admin = adminOf(data);
    const token = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'alice', secrets: [ALICE] })).json.token as string;
    const closedBy = new Promise<string>((resolve) => {
      const s = subscribe({
        url: relay.url.replace('http', 'ws'),
        token,
        onDelivery: () => undefined,
        onState: (st) => {
          if (st.state === 'reconnecting') {
            s.close();
            resolve(st.reason);
          }
        },
      });
    });
    assert.equal((await call('GET', `${relay.url}/api/deliveries`, token)).status, 200);
    const first = JSON.stringify({ before: 'delete' });
    assert.equal((await post(`${relay.url}/hooks/alice`, first, signed(ALICE, first))).status, 200);
    const names = async () => ({
      status: (await call('GET', `${relay.url}/api/status`, admin)).json.channels.map((c: { name: string }) => c.name) as string[],
      channels: (await call('GET', `${relay.url}/api/channels`, admin)).json.channels.map((c: { name: string }) => c.name) as string[],
    });
    assert.ok((await names()).status.includes('alice'));
    const del = await call('DELETE', `${relay.url}/api/channels/alice`, admin);
    assert.equal(del.status, 204);
    assert.match(await closedBy, /closed|1008|4401|channel deleted/, 'an open stream of the channel is closed');
    assert.equal((await call('GET', `${relay.url}/api/deliveries`, token)).status, 401);
    const body = JSON.stringify({ late: true });
    const late = await post(`${relay.url}/hooks/alice`, body, signed(ALICE, body));
    assert.equal(late.status, 404);
    assert.match((late.json as { error: string }).error, /alice/);
    // Issue 28 item 5: the status no longer offers it (nor its ingress URL), as the channel list does not.
    assert.deepEqual(await names(), { status: [], channels: ['default'] });
    await relay.stop('SIGTERM');
    relay = await start(['--data', data]);
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(ALICE, body))).status, 404, 'still deleted after a restart');
    assert.equal((await call('GET', `${relay.url}/api/deliveries`, token)).status, 401);
    assert.deepEqual(
      (await call('GET', `${relay.url}/api/channels`, admin)).json.channels.filter((c: { source: string }) => c.source === 'api'),
      [],
    );
    assert.deepEqual(await names(), { status: [], channels: ['default'] }, 'nor after a restart');
  });

  it('RelayApi: createChannel, listChannels, getChannel, deleteChannel; refusals are RelayApiError with the status', async () => {
    const data = tempDir();
    const relay = await start(['--data', data]);
    const api = new RelayApi({ baseUrl: relay.url, token: adminOf(data) });
    const c = await api.createChannel({ name: 'alice', secrets: [ALICE] });
    assert.equal(c.ingressUrl, `${relay.url}/hooks/alice`);
    assert.ok((await api.listChannels()).some((x) => x.name === 'alice'));
    assert.equal((await new RelayApi({ baseUrl: relay.url, token: c.token }).getChannel('alice')).name, 'alice');
    await assert.rejects(api.createChannel({ name: 'alice', secrets: [ALICE] }), (e: unknown) => e instanceof RelayApiError && e.status === 409);
    await api.deleteChannel('alice');
    await assert.rejects(api.deleteChannel('alice'), (e: unknown) => e instanceof RelayApiError && e.status === 404);
  });

  it('service-hooks channels create|list|delete: output, exit codes 0/1/2, token from the environment', async () => {
    const data = tempDir();
    const relay = await start(['--data', data]);
    const admin = adminOf(data);
    const target = ['--relay', relay.url];
    const made = await runCli(['channels', 'create', 'alice', '--generate-secret', ...target], { SERVICE_HOOKS_RELAY_TOKEN: admin });
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /channel alice created\n {2}ingress URL: http:\/\/127\.0\.0\.1:\d+\/hooks\/alice\n {2}token: +shc_\S+\n {2}secret: +\S{43}\n/);
    const secret = /secret: +(\S+)/.exec(made.stdout)![1]!;
    const body = '{"via":"cli"}';
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(secret, body))).status, 200, 'the generated secret verifies');
    const json = await runCli(['channels', 'create', 'bob', '--secret', BOB, '--json', ...target, '--token', admin]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).name, 'bob');
    const list = await runCli(['channels', 'list', ...target, '--token', admin]);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^alice {2}api {2}secrets 1 {2}received 1, verified 1/m);
    assert.match(list.stdout, /^bob {2}api/m);
    const dup = await runCli(['channels', 'create', 'bob', '--secret', BOB, ...target, '--token', admin]);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /409.*'bob' already exists/);
    assert.equal((await runCli(['channels', 'delete', 'bob', ...target, '--token', admin])).code, 0);
    assert.equal((await runCli(['channels', 'delete', 'bob', ...target, '--token', admin])).code, 1);
    const wrong = await runCli(['channels', 'list', ...target, '--token', 'not-the-token']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /401/);
    // Usage errors: one through a real process (exit 2 and the hint), the rest in this process.
    const usage = await runCli(['channels', 'create', 'x', ...target, '--token', admin]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /service-hooks channels: create needs --secret S or --generate-secret .*\nRun 'service-hooks channels --help'/);
    for (const args of [[], ['rename', 'x'], ['create'], ['list', 'x'], ['delete', 'x', '--secret', 's'], ['create', 'x', '--secret', '']]) {
      await assert.rejects(channelsCommand.run([...args, ...target, '--token', admin], quietIo()), isUsageError, args.join(' '));
    }
    assert.match(channelsCommand.help, /Usage: service-hooks channels create NAME/);
  });
});
