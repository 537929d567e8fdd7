// The attempt to a local https app with its trust (issue 38 item 4): a CA to trust beside the
// usual roots, or no certificate check (an app on this machine only: the caller checks that with
// src/core/relay/appTrust), and the words for an app's certificate error, saying which of the two
// fits. `service-hooks forward` names its flags (--ca FILE, --skip-verify); the editor its setting.
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { isLoopback, isUntrustedCert } from '../../src/core/relay/appTrust';
import type { DeliveryMessage } from '../../src/core/relay/protocol';
import { forwardDelivery, type ForwardOptions, type ForwardResult } from './forward';

/** Certificate errors only skipping the check gets past (${words.caName} does not help). */
const BAD_CERT = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'HOSTNAME_MISMATCH']);

export interface AppTrust {
  /** A CA (PEM) trusted beside the usual roots. */
  caPem?: string;
  /** No certificate check (the caller made sure every target is loopback). */
  skipVerify?: boolean;
  timeoutMs: number;
  /** How the user trusts a CA and skips the check (default: forward's flags). */
  words?: { ca: string; skip: string; caName: string };
}

const FLAG_WORDS = { ca: 'pass --ca FILE (the PEM of the CA that signed it)', skip: 'pass --skip-verify (an app on this machine)', caName: '--ca' };

/** `extra.resignSecret`: a replay re-signed (the editor's Replay Delivery) goes with the same trust. */
export type AppAttempt = (
  d: DeliveryMessage['delivery'],
  to: string,
  signal: AbortSignal,
  extra?: Pick<ForwardOptions, 'resignSecret'>,
) => Promise<ForwardResult>;

/** The attempt with `t`'s trust; certificate errors are explained in `t.words`. */
export function trustedAttempt(t: AppTrust): AppAttempt {
  const connect = t.skipVerify ? { rejectUnauthorized: false } : t.caPem !== undefined ? { ca: [...rootCertificates, t.caPem] } : undefined;
  const dispatcher = connect ? new Agent({ keepAliveTimeout: 4_000, connect }) : undefined;
  return async (d, to, signal, extra = {}) =>
    explained(await forwardDelivery(d, to, { ...extra, timeoutMs: t.timeoutMs, signal, ...(dispatcher ? { dispatcher } : {}) }), to, t);
}

/** An app's certificate error, with the way out that fits it. */
function explained(r: ForwardResult, to: string, t: AppTrust): ForwardResult {
  const code = r.error === undefined ? undefined : /^([A-Z_]+):/.exec(r.error)?.[1];
  if (code === undefined || (!isUntrustedCert(code) && !BAD_CERT.has(code))) return r;
  const words = t.words ?? FLAG_WORDS;
  const canSkip = isLoopback(to) && !t.skipVerify;
  const how = isUntrustedCert(code)
    ? `its CA is not trusted here: ${words.ca}${canSkip ? ` or ${words.skip.replace(/^pass /, '')}` : ''}`
    : `it does not fit the app's address or date (${words.caName} does not help): ${canSkip ? words.skip : 'fix the certificate'}`;
  return { ...r, error: `${code}: the app's certificate at ${new URL(to).host}: ${how}` };
}
