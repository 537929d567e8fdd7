// The delivery engine never connects to link-local, unspecified or metadata addresses: the
// address check itself, and the lookup that refuses a host name resolving to one.
import { strict as assert } from 'node:assert';
import type { LookupAddress } from 'node:dns';
import { forbiddenAddress, forbiddenTarget } from '../../../src/core/net/address';
import { guardedLookup } from '../../../relay/emulator/guard';

describe('delivery target guard', () => {
  it('classifies addresses: link-local, unspecified and metadata refused; loopback and public allowed', () => {
    for (const a of ['169.254.169.254', '169.254.0.1', '::ffff:169.254.169.254', 'fe80::1', 'febf::1', '[fe80::1]']) {
      assert.match(forbiddenAddress(a) ?? '', /link-local/, a);
    }
    // IPv6 forms embedding 169.254.0.0/16 that a NAT64 gateway, translator or tunnel takes there.
    const embedded = [
      '[64:ff9b::a9fe:a9fe]',
      '64:ff9b::169.254.169.254',
      '[::a9fe:a9fe]',
      '::169.254.0.1',
      '::ffff:0:a9fe:a9fe',
      '64:ff9b:1:a9fe:a9:fe00::',
      '2002:a9fe:a9fe::1',
      '2001:0:a9fe:a9fe::1',
    ];
    for (const a of embedded) assert.match(forbiddenAddress(a) ?? '', /link-local/, a);
    for (const a of ['64:ff9b::cb00:7105', '::cb00:7105', '2002:cb00:7105::1']) assert.equal(forbiddenAddress(a), undefined, `${a} embeds 203.0.113.5`);
    for (const a of ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0']) assert.match(forbiddenAddress(a) ?? '', /unspecified/, a);
    assert.match(forbiddenAddress('fd00:ec2::254') ?? '', /metadata/);
    for (const a of ['127.0.0.1', '::1', '10.0.0.1', '192.168.1.1', '203.0.113.5', '2001:db8::1', 'fec0::1', 'example.com', 'localhost']) {
      assert.equal(forbiddenAddress(a), undefined, a);
    }
    assert.match(forbiddenTarget(new URL('http://[::ffff:a9fe:a9fe]/')) ?? '', /link-local/);
    assert.match(forbiddenTarget(new URL('ftp://example.com/')) ?? '', /http or https/);
    assert.equal(forbiddenTarget(new URL('https://example.com/hook')), undefined);
  });

  const fake = (answers: Record<string, string[]>) => (host: string, _o: unknown, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    const list = answers[host];
    if (!list) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    cb(
      null,
      list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  const resolve = (lookup: ReturnType<typeof guardedLookup>, host: string, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((r) => lookup(host, { all }, (err, address) => r({ err, address })));

  it('a host name resolving to a forbidden address fails the lookup with the reason; others resolve as asked', async () => {
    const lookup = guardedLookup(
      fake({
        'metadata.test': ['169.254.169.254'],
        'mixed.test': ['203.0.113.7', 'fe80::1'],
        'app.test': ['203.0.113.7', '2001:db8::7'],
      }),
    );
    for (const host of ['metadata.test', 'mixed.test']) {
      for (const all of [false, true]) {
        const { err } = await resolve(lookup, host, all);
        assert.equal(err?.code, 'EREFUSEDTARGET', host);
        assert.match(err!.message, new RegExp(`refused: ${host} resolves to .* link-local`));
      }
    }
    assert.deepEqual(await resolve(lookup, 'app.test', false), { err: null, address: '203.0.113.7' });
    assert.equal(((await resolve(lookup, 'app.test', true)).address as LookupAddress[]).length, 2);
    assert.equal((await resolve(lookup, 'nowhere.test', false)).err?.code, 'ENOTFOUND');
  });

  it('the real resolver still resolves localhost through the guard', async () => {
    const { err, address } = await resolve(guardedLookup(), 'localhost', false);
    assert.equal(err, null);
    assert.match(String(address), /^(127\.0\.0\.1|::1)$/);
  });
});
