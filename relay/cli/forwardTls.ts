// `forward`'s trust for local https apps (issue 38 item 4), like `stripe listen --skip-verify`:
//   --ca FILE       trust this CA (PEM) for the targets, beside the usual roots
//   --skip-verify   no certificate check at all; refused unless every target is loopback
// and the words for an app's certificate error, saying which of the two fits.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { forwardDelivery, type ForwardResult } from '../client/forward';
import type { ForwardEngineOptions } from '../client/forwardEngine';
import { UsageError } from './io';
import { isUntrustedCert } from './tlsTrust';

/** Certificate errors only --skip-verify gets past (a CA does not help). */
const BAD_CERT = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'HOSTNAME_MISMATCH']);

/** Is `url`'s host this machine (127.0.0.0/8, ::1, localhost)? */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export interface TlsFlags {
  ca?: string;
  skipVerify?: boolean;
  cwd: string;
  targets: readonly string[];
  timeoutMs: number;
}

/** The attempt to an app with the flags' trust; undefined: the default one. Throws UsageError for a wrong flag. */
export function appAttempt(f: TlsFlags): ForwardEngineOptions['attempt'] {
  let connect: { ca?: string[]; rejectUnauthorized?: boolean } | undefined;
  if (f.skipVerify) {
    const far = f.targets.find((t) => !isLoopback(t));
    if (far !== undefined)
      throw new UsageError(`--skip-verify is for an app on this machine only (127.0.0.1, ::1, localhost); ${new URL(far).host} is not: pass --ca FILE instead`);
    connect = { rejectUnauthorized: false };
  } else if (f.ca !== undefined) {
    connect = { ca: [...rootCertificates, readCa(resolve(f.cwd, f.ca))] };
  }
  const dispatcher = connect ? new Agent({ keepAliveTimeout: 4_000, connect }) : undefined;
  return async (d, to, signal) => explained(await forwardDelivery(d, to, { timeoutMs: f.timeoutMs, signal, ...(dispatcher ? { dispatcher } : {}) }), to, f);
}

function readCa(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

/** An app's certificate error, with the flag that fits it. */
function explained(r: ForwardResult, to: string, f: TlsFlags): ForwardResult {
  const code = r.error === undefined ? undefined : /^([A-Z_]+):/.exec(r.error)?.[1];
  if (code === undefined || (!isUntrustedCert(code) && !BAD_CERT.has(code))) return r;
  const canSkip = isLoopback(to) && !f.skipVerify;
  // An unknown CA (tlsTrust.ts) is what --ca FILE cures.
  const how = isUntrustedCert(code)
    ? `its CA is not trusted here: pass --ca FILE (the PEM of the CA that signed it)${canSkip ? ' or --skip-verify (an app on this machine)' : ''}`
    : `it does not fit the app's address or date (--ca does not help): ${canSkip ? 'pass --skip-verify (an app on this machine)' : 'fix the certificate'}`;
  return { ...r, error: `${code}: the app's certificate at ${new URL(to).host}: ${how}` };
}
