// The relay's listening modes the seams walk adds to surfaces × tokens × stores: --public (no
// implicit channel, no channel without a secret), TLS (HTTPS and WSS with an openssl-made
// certificate) and the source allow-list (--allow-cidr, one that admits the test's loopback source).
// All 2×2×2 would multiply every run by eight: the rows are pairwise instead (PAIRWISE: every two
// dimensions take each pair of values in some row), with --public only beside TLS, as the product
// demands (relay/server/public.ts).
import { getGlobalDispatcher, setGlobalDispatcher, Agent, type Dispatcher } from 'undici';
import { existsSync, readFileSync } from 'node:fs';
import { makeTestCerts, type TestCerts } from '../relay/support/certs';

export interface Mode {
  public: boolean;
  tls: boolean;
  allowCidr: boolean;
}

export const PLAIN: Mode = { public: false, tls: false, allowCidr: false };

/**
 * With PLAIN (seams.test.ts), every pair of (public, tls, allowCidr) values that --public allows:
 * public×tls FF FT TT, public×allowCidr FF FT TF TT, tls×allowCidr FF FT TF TT.
 */
export const PAIRWISE: readonly Mode[] = [
  { public: false, tls: false, allowCidr: true },
  { public: false, tls: true, allowCidr: false },
  { public: true, tls: true, allowCidr: true },
  { public: true, tls: true, allowCidr: false },
];

/** The allow-list of the allowCidr dimension: the loopback the test posts from, and a range it never uses. */
export const ALLOW_CIDR = ['127.0.0.0/8', '203.0.113.0/24'];

export function modeText(m: Mode): string {
  const on = [m.public && '--public', m.tls && 'TLS', m.allowCidr && `--allow-cidr ${ALLOW_CIDR.join(',')}`].filter(Boolean);
  return on.length ? on.join(' + ') : 'plain HTTP';
}

let certs: TestCerts | undefined;

/** The test certificates (made with openssl, for 127.0.0.1; again once a test's end removed the folder). */
export function testCerts(): TestCerts {
  if (!certs || !existsSync(certs.serverCert)) certs = makeTestCerts();
  return certs;
}

export function tlsMaterial(): { cert: Buffer; key: Buffer } {
  const c = testCerts();
  return { cert: readFileSync(c.serverCert), key: readFileSync(c.serverKey) };
}

/**
 * For a TLS mode's run: every undici request without a dispatcher of its own (the driver's and the
 * readers') trusts the test CA; returns the function that puts the previous dispatcher back.
 */
export function trustTestCa(): () => void {
  const before: Dispatcher = getGlobalDispatcher();
  const agent = new Agent({ connect: { ca: testCerts().ca } });
  setGlobalDispatcher(agent);
  return () => {
    setGlobalDispatcher(before);
    void agent.close();
  };
}
