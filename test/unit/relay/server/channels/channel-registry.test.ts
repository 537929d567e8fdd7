// The channel registry (channels.json: token hashes only, 0600, a malformed file named) and the
// channel directory (which channels a local or a --public relay serves, and a deleted name's 404),
// with the scope each token gets (relay/server/channels/, relay/server/access/scope.ts).
import { strict as assert } from 'node:assert';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChannelError, ChannelRegistry, CHANNELS_FILE, hashToken } from '../../../../../relay/server/channels/channelRegistry';
import { ChannelDirectory } from '../../../../../relay/server/channels/channelDirectory';
import { authenticate, sees } from '../../../../../relay/server/access/scope';
import { tempDir } from '../../support/helpers';

describe('relay channel registry (channels.json)', async () => {
  it('persists channels across opens in a 0600 file that holds token hashes, never tokens', async () => {
    const dir = tempDir();
    const reg = ChannelRegistry.open(dir);
    const { token, channel } = await reg.create('alice', ['s3cret-of-alice']);
    assert.match(token, /^shc_[A-Za-z0-9_-]{43}$/);
    assert.equal(channel.tokenHash, hashToken(token));
    const file = join(dir, CHANNELS_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(token), 'the token is not stored');
    assert.ok(text.includes(hashToken(token)));
    const again = ChannelRegistry.open(dir);
    assert.deepEqual(again.get('alice')?.secrets, ['s3cret-of-alice']);
    assert.equal(again.channelOf(token), 'alice');
  });

  it('maps a token to its channel only; other strings, the empty token and a near miss map to none', async () => {
    const reg = ChannelRegistry.open(tempDir());
    const a = (await reg.create('alice', ['a-secret'])).token;
    const b = (await reg.create('bob', ['b-secret'])).token;
    assert.equal(reg.channelOf(a), 'alice');
    assert.equal(reg.channelOf(b), 'bob');
    assert.equal(reg.channelOf(undefined), undefined);
    assert.equal(reg.channelOf(''), undefined);
    assert.equal(reg.channelOf(a.slice(0, -1) + (a.endsWith('A') ? 'B' : 'A')), undefined);
    assert.equal(reg.channelOf(hashToken(a)), undefined);
  });

  it('refuses a second channel of the same name (exists) and deleting an unknown one (not-found)', async () => {
    const reg = ChannelRegistry.open(tempDir());
    await reg.create('alice', ['x']);
    await assert.rejects(reg.create('alice', ['y']), (e: unknown) => e instanceof ChannelError && e.kind === 'exists');
    await assert.rejects(reg.delete('carol'), (e: unknown) => e instanceof ChannelError && e.kind === 'not-found');
  });

  it('deleting revokes the token and remembers the name until it is created again (with a new token)', async () => {
    const dir = tempDir();
    const reg = ChannelRegistry.open(dir);
    const old = (await reg.create('alice', ['x'])).token;
    await reg.delete('alice');
    assert.equal(reg.channelOf(old), undefined);
    assert.equal(reg.wasDeleted('alice'), true);
    assert.equal(ChannelRegistry.open(dir).wasDeleted('alice'), true, 'the tombstone persists');
    const fresh = (await reg.create('alice', ['y'])).token;
    assert.notEqual(fresh, old);
    assert.equal(reg.wasDeleted('alice'), false);
    assert.equal(ChannelRegistry.open(dir).channelOf(old), undefined);
    assert.equal(ChannelRegistry.open(dir).channelOf(fresh), 'alice');
  });

  it('a malformed channels.json stops the open with the file named (not silently emptied)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, CHANNELS_FILE), '{"version":1,"channels":[{"name":"a"}]}');
    assert.throws(() => ChannelRegistry.open(dir), /channels\.json: malformed channel entry "a"/);
    writeFileSync(join(dir, CHANNELS_FILE), 'nope');
    assert.throws(() => ChannelRegistry.open(dir), /channels\.json: not JSON/);
  });

  it('scopes: the admin token is admin, a channel token is its channel, anything else is nobody', async () => {
    const reg = ChannelRegistry.open(tempDir());
    const t = (await reg.create('alice', ['x'])).token;
    assert.deepEqual(authenticate('admin-token-123', 'admin-token-123', reg), { kind: 'admin' });
    const scope = authenticate(t, 'admin-token-123', reg);
    const gen = reg.get('alice')!.gen!;
    assert.match(gen, /^[A-Za-z0-9_-]{11}$/, 'a channel gets a generation');
    assert.deepEqual(scope, { kind: 'channel', channel: 'alice', key: `alice@${gen}` });
    assert.equal(authenticate('wrong', 'admin-token-123', reg), undefined);
    assert.equal(sees(scope!, `alice@${gen}`), true);
    assert.equal(sees(scope!, 'alice'), false, 'not the deliveries of an implicit channel of that name');
    assert.equal(sees(scope!, 'bob'), false);
    assert.equal(sees({ kind: 'admin' }, 'bob'), true);
  });
});

describe('relay channel directory (which channels a relay serves)', () => {
  const settingsOf = (secrets: string[]) => (name: string) => ({ secrets: name === 'cfg' ? ['cfg-secret'] : secrets, forward: [] });
  const open = (strict: boolean, relaySecrets: string[] = []) =>
    new ChannelDirectory(ChannelRegistry.open(tempDir()), {
      settingsOf: settingsOf(relaySecrets),
      configured: ['cfg'],
      forward: ['http://127.0.0.1:9/t'],
      strict,
      ingressBase: () => 'https://relay.example.com',
    });

  it('a local relay: api, config, default and implicit channels; a deleted name is 404 until created again', async () => {
    const d = open(false);
    await d.create('alice', ['a-secret']);
    assert.deepEqual(
      d.lookup('alice'),
      { ok: true, source: 'api', settings: { secrets: ['a-secret'], forward: [] }, gen: d.registry.get('alice')!.gen },
      'an API channel is streamed to its token holders, not sent to the relay-wide targets',
    );
    assert.equal((d.lookup('cfg') as { source: string }).source, 'config');
    assert.equal((d.lookup('default') as { source: string }).source, 'default');
    assert.equal((d.lookup('anything') as { source: string }).source, 'implicit');
    await d.registry.delete('alice');
    assert.deepEqual(d.lookup('alice'), { ok: false, error: "channel 'alice' was deleted" });
    await d.create('alice', ['b-secret']);
    assert.equal((d.lookup('alice') as { source: string }).source, 'api');
    assert.match(d.taken('cfg') ?? '', /--config/);
    assert.match(d.taken('default') ?? '', /relay's own/);
    assert.match(d.fixed('cfg') ?? '', /remove it there/);
    assert.equal((await d.create('bob', ['x'])).ingressUrl, 'https://relay.example.com/hooks/bob');
  });

  it('a strict (--public) relay: no implicit channels, and no channel without a secret is served or listed', () => {
    const d = open(true);
    assert.deepEqual(d.lookup('anything'), { ok: false, error: "no channel 'anything'" });
    assert.match((d.lookup('default') as { error: string }).error, /has no secret/);
    assert.deepEqual(
      d.list([]).map((c) => c.name),
      ['cfg'],
    );
    const signed = open(true, ['relay-secret']);
    assert.deepEqual(
      signed.list([]).map((c) => [c.name, c.source, c.secrets]),
      [
        ['cfg', 'config', 1],
        ['default', 'default', 1],
      ],
    );
  });
});
