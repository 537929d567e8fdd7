// The --public preset and the TLS files, as pure checks (relay/server/public.ts, tls.ts): what it
// binds and allows, that it needs TLS or --trust-proxy, which channels would take unsigned
// deliveries, and a key that does not belong to its certificate refused.
import { strict as assert } from 'node:assert';
import { PublicConfigError, publicSettings, unsignedChannels } from '../../../../relay/server/public';
import { loadTls, TlsConfigError } from '../../../../relay/server/tls';
import { makeTestCerts } from '../support/certs';

describe('relay --public preset and TLS files (pure checks)', () => {
  it('refuses --public without TLS or --trust-proxy', () => {
    assert.throws(() => publicSettings({ public: true, tls: false, trustProxy: false, allowCidr: [] }), PublicConfigError);
  });

  it('binds 0.0.0.0 and allows only the service networks unless told otherwise; requires verification', () => {
    assert.deepEqual(publicSettings({ public: true, tls: true, trustProxy: false, allowCidr: [] }), {
      host: '0.0.0.0',
      allowCidr: ['service'],
      requireVerified: true,
    });
    assert.deepEqual(publicSettings({ public: true, tls: false, trustProxy: true, host: '127.0.0.1', allowCidr: ['10.0.0.0/8'] }), {
      host: '127.0.0.1',
      allowCidr: ['10.0.0.0/8'],
      requireVerified: true,
    });
  });

  it('--public without TLS binds loopback (the proxy is on this machine) unless --host says otherwise', () => {
    assert.equal(publicSettings({ public: true, tls: false, trustProxy: true, allowCidr: [] }).host, '127.0.0.1');
    assert.equal(publicSettings({ public: true, tls: false, trustProxy: true, host: '0.0.0.0', allowCidr: [] }).host, '0.0.0.0');
  });

  it('without --public nothing changes: loopback, no allow-list, unverified accepted', () => {
    assert.deepEqual(publicSettings({ public: false, tls: false, trustProxy: false, allowCidr: [] }), {
      host: '127.0.0.1',
      allowCidr: [],
      requireVerified: false,
    });
  });

  it('names the configured channels that would accept unverified deliveries', () => {
    assert.equal(unsignedChannels(['s'], { a: {}, b: { secrets: ['t'] } }), undefined);
    assert.match(unsignedChannels([], { a: {}, b: { secrets: ['t'] }, c: { secrets: [] } }) ?? '', /channel\(s\) 'a', 'c'/);
  });

  it('loads a certificate and its key; refuses a missing file and a key of another certificate', () => {
    const c = makeTestCerts();
    assert.ok(loadTls({ cert: c.serverCert, key: c.serverKey }).cert.length > 0);
    assert.throws(
      () => loadTls({ cert: c.serverCert + '.nope', key: c.serverKey }),
      (e: unknown) => e instanceof TlsConfigError && /--tls-cert .*no such file/.test(e.message),
    );
    assert.throws(() => loadTls({ cert: c.serverCert, key: c.otherKey }), /the key does not belong to the certificate/);
    assert.throws(() => loadTls({ cert: c.serverKey, key: c.serverKey }), /not a PEM certificate and key/);
  });
});
