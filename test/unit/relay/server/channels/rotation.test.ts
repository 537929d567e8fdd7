// Channel secret rotation (PATCH /api/channels/<name>, `channels rotate`) and the allow-list's
// refusals, counted per channel: real relays on 127.0.0.1 port 0, real HTTP.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { CliIO } from '../../../../../relay/cli/io';
import channelsCommand from '../../../../../relay/commands/channels';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { post, signed, tempDir } from '../../support/helpers';
import { call } from '../../support/publicHelpers';

const OLD = 'old-secret-0123456789abcdef';
const NEW = 'new-secret-0123456789abcdef';

function captureIo(): CliIO & { out: () => string } {
  let out = '';
  const stdout = new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) });
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return { stdout, stderr: sink, stdin: Readable.from([]), env: {}, cwd: process.cwd(), stopSignal: new AbortController().signal, out: () => out };
}

describe('channel secret rotation without downtime', function () {
  this.timeout(30_000);
  let relay: RelayServer | undefined;
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  it('a burst during rotation: every delivery verified, none rejected; the old secret stops after --only', async () => {
    const data = tempDir();
    relay = await startRelay({ port: 0, dataDir: data });
    const admin = relay.token;
    const created = await call('POST', `${relay.url}/api/channels`, admin, { name: 'alice', secrets: [OLD] });
    assert.equal(created.status, 201);
    const channelToken: string = created.json.token;

    // The "service": 60 deliveries in flight, signed with the old secret until it is told the new one.
    let secret = OLD;
    const send = (i: number) => {
      const body = JSON.stringify({ i });
      return post(`${relay!.url}/hooks/alice`, body, signed(secret, body));
    };
    const burst: Promise<{ status: number }>[] = [];
    for (let i = 0; i < 20; i++) burst.push(send(i));
    // Rotation, step 1: the relay verifies with both (the token stays).
    const added = await call('PATCH', `${relay.url}/api/channels/alice`, admin, { addSecrets: [NEW] });
    assert.equal(added.status, 200);
    assert.equal(added.json.secrets, 2);
    for (let i = 20; i < 40; i++) burst.push(send(i));
    // Step 2: the webhook on the service gets the new secret.
    secret = NEW;
    for (let i = 40; i < 60; i++) burst.push(send(i));
    const answers = await Promise.all(burst);
    // Step 3: only the new one.
    const only = await call('PATCH', `${relay.url}/api/channels/alice`, admin, { secrets: [NEW] });
    assert.equal(only.status, 200);
    assert.equal(only.json.secrets, 1);

    assert.deepEqual(
      answers.map((a) => a.status).filter((s) => s !== 200),
      [],
      '0 rejected during the rotation',
    );
    const status = await call('GET', `${relay.url}/api/channels/alice`, channelToken);
    assert.equal(status.status, 200, 'the channel token still works');
    assert.deepEqual([status.json.verified, status.json.rejected], [60, 0]);
    const body = '{"after":true}';
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(OLD, body))).status, 401, 'the old secret no longer verifies');
    assert.equal((await post(`${relay.url}/hooks/alice`, body, signed(NEW, body))).status, 200);
    const file = JSON.parse(readFileSync(join(data, 'channels.json'), 'utf8'));
    assert.deepEqual(file.channels[0].secrets, [NEW], 'persisted');
  });

  it('refuses bad PATCH bodies, channel tokens, config channels; `channels rotate` adds a secret and keeps the token', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir() });
    const admin = relay.token;
    const { json } = await call('POST', `${relay.url}/api/channels`, admin, { name: 'bob', secrets: [OLD] });
    const url = `${relay.url}/api/channels/bob`;
    for (const [body, re] of [
      [{}, /exactly one/],
      [{ secrets: [NEW], addSecrets: [NEW] }, /exactly one/],
      [{ secrets: 'x' }, /array of non-empty strings/],
      [{ addSecrets: [''] }, /array of non-empty strings/],
      [{ secrets: [NEW], token: 'x' }, /unknown field 'token'/],
    ] as const) {
      const r = await call('PATCH', url, admin, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.error, re);
    }
    assert.equal((await call('PATCH', url, json.token, { addSecrets: [NEW] })).status, 403, 'a channel token may not change secrets');
    assert.equal((await call('PATCH', `${relay.url}/api/channels/nope`, admin, { addSecrets: [NEW] })).status, 404);
    assert.equal((await call('PATCH', `${relay.url}/api/channels/default`, admin, { addSecrets: [NEW] })).status, 409);

    const io = captureIo();
    assert.equal(await channelsCommand.run(['rotate', 'bob', '--relay', relay.url, '--token', admin], io), 0);
    const generated = /secret: (\S+)/.exec(io.out())![1]!;
    assert.ok(generated.length >= 32);
    let body = '{"n":1}';
    assert.equal((await post(`${relay.url}/hooks/bob`, body, signed(OLD, body))).status, 200, 'the old one still verifies');
    assert.equal((await post(`${relay.url}/hooks/bob`, body, signed(generated, body))).status, 200, 'and the new one');
    assert.equal((await call('GET', url, json.token)).status, 200, 'the token is unchanged');
    assert.equal(await channelsCommand.run(['rotate', 'bob', '--secret', generated, '--only', '--relay', relay.url, '--token', admin], captureIo()), 0);
    body = '{"n":2}';
    assert.equal((await post(`${relay.url}/hooks/bob`, body, signed(OLD, body))).status, 401);
    assert.equal((await post(`${relay.url}/hooks/bob`, body, signed(generated, body))).status, 200);
  });
});

describe('PATCH secrets: no silent switch to unsigned, a warning for a short secret (issue 36.13)', function () {
  this.timeout(30_000);
  let relay: RelayServer | undefined;
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  it('refuses secrets: [] unless allowUnsigned: true; warns (answer and log) as create does', async () => {
    const lines: { message: string; level?: string }[] = [];
    relay = await startRelay({ port: 0, dataDir: tempDir(), log: (message, f) => lines.push({ message, level: f?.level }) });
    const admin = relay.token;
    await call('POST', `${relay.url}/api/channels`, admin, { name: 'carol', secrets: [OLD] });
    const url = `${relay.url}/api/channels/carol`;
    const unsigned = await call('PATCH', url, admin, { secrets: [] });
    assert.equal(unsigned.status, 400);
    assert.match(unsigned.json.error, /unsigned deliveries.*allowUnsigned/);
    assert.equal((await call('GET', url, admin)).json.secrets, 1, 'the secret stays');
    assert.equal((await call('PATCH', url, admin, { secrets: [], allowUnsigned: 'yes' })).status, 400);
    // Each row: the body, then the warning it must carry (undefined: none).
    for (const [body, warning] of [
      [{ secrets: ['tiny-1'] }, /secret #1 has fewer than 16 bytes/],
      [{ addSecrets: ['tiny-2'] }, /secret #1 has fewer than 16 bytes/],
      [{ secrets: [NEW] }, undefined],
      [{ secrets: [], allowUnsigned: true }, /no secret: it accepts unsigned deliveries/],
    ] as const) {
      lines.length = 0;
      const r = await call('PATCH', url, admin, body);
      assert.equal(r.status, 200, JSON.stringify(body));
      if (!warning) {
        assert.equal(r.json.warning, undefined, JSON.stringify(body));
        continue;
      }
      assert.match(r.json.warning, warning, JSON.stringify(body));
      const logged = lines.find((l) => /channel 'carol'/.test(l.message));
      assert.match(logged?.message ?? '', warning);
      assert.equal(logged?.level, 'warn');
      assert.doesNotMatch(logged!.message, /tiny-/, 'the secret is not printed');
    }
    assert.equal((await call('GET', url, admin)).json.secrets, 0);
    const body = '{}';
    assert.equal((await post(`${relay.url}/hooks/carol`, body)).status, 200, 'asked for explicitly: unsigned accepted');
  });
});

describe('deliveries refused by the source allow-list are visible', function () {
  this.timeout(30_000);
  let relay: RelayServer | undefined;
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });

  it('counts refusals per channel in /api/status and /api/channels, names the address, logs rate-limited', async () => {
    const lines: string[] = [];
    let now = 1_000_000;
    relay = await startRelay({ port: 0, dataDir: tempDir(), allowCidr: ['service'], trustProxy: ['127.0.0.1'], log: (l) => lines.push(l), now: () => now });
    assert.ok(
      lines.some((l) => /accepting deliveries only from 203\.0\.113\.0\/24, 198\.51\.100\.0\/24/.test(l)),
      'the accepted networks are printed at start-up',
    );
    const admin = relay.token;
    await call('POST', `${relay.url}/api/channels`, admin, { name: 'alice', secrets: [OLD] });
    const body = '{}';
    const from = (ip: string, ch = 'alice') => post(`${relay!.url}/hooks/${ch}`, body, signed(OLD, body, { 'x-forwarded-for': ip }));
    assert.equal((await from('203.0.113.9')).status, 200);
    const refused = await from('192.0.2.7');
    assert.equal(refused.status, 403);
    assert.match((refused.json as { error: string }).error, /source address 192\.0\.2\.7 is not in the allow-list/);
    for (let i = 0; i < 4; i++) assert.equal((await from('192.0.2.7')).status, 403);
    assert.equal((await from('192.0.2.8', 'default')).status, 403);
    assert.equal((await from('192.0.2.8', 'other-name')).status, 403, 'any name: the same answer');

    const status = await call('GET', `${relay.url}/api/status`, admin);
    const byName = Object.fromEntries(
      status.json.channels.map((c: { name: string; refused?: number; received: number }) => [c.name, [c.received, c.refused ?? 0]]),
    );
    assert.deepEqual(byName.alice, [1, 5]);
    assert.deepEqual(byName.default, [0, 1], 'a channel with refusals only is listed');
    assert.deepEqual(byName['other-name'], [0, 1], 'a local relay serves any name (an implicit channel): counted under it');
    const list = await call('GET', `${relay.url}/api/channels`, admin);
    assert.equal(list.json.channels.find((c: { name: string }) => c.name === 'alice').refused, 5);

    const refusalLines = () => lines.filter((l) => l.startsWith('refused a delivery'));
    assert.equal(refusalLines().filter((l) => l.includes('192.0.2.7')).length, 1, 'one line a minute per source');
    assert.match(refusalLines()[0]!, /channel 'alice' from 192\.0\.2\.7: not in the source allow-list/);
    now += 61_000;
    await from('192.0.2.7');
    assert.match(refusalLines().filter((l) => l.includes('192.0.2.7'))[1]!, /\(4 more from it since the last line\)/);
  });
});
