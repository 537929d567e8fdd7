// `forward`'s trust for local https apps (issue 38 item 4), like `stripe listen --skip-verify`:
//   --ca FILE       trust this CA (PEM) for the targets and the wss:// relay addresses, beside the usual roots
//   --skip-verify   no certificate check at all; refused unless every target is loopback (never for a relay)
// The attempt and the words for an app's certificate error (which of the two fits) are
// relay/client/appAttempt.ts's, shared with the editor's set-ups.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { resolve } from 'node:path';
import { trustedAttempt } from '../client/appAttempt';
import type { ForwardEngineOptions } from '../client/forwardEngine';
import { caTextProblem, farTarget } from '../../src/core/relay/appTrust';
import { UsageError } from './io';
import { isUntrustedCert, untrustedCertMessage } from './tlsTrust';

export interface TlsFlags {
  ca?: string;
  skipVerify?: boolean;
  cwd: string;
  targets: readonly string[];
  timeoutMs: number;
}

/** The attempt to an app with the flags' trust; undefined: the default one. Throws UsageError for a wrong flag. */
export function appAttempt(f: TlsFlags): ForwardEngineOptions['attempt'] {
  if (f.skipVerify) {
    const far = farTarget(f.targets);
    if (far !== undefined)
      throw new UsageError(`--skip-verify is for an app on this machine only (127.0.0.1, ::1, localhost); ${new URL(far).host} is not: pass --ca FILE instead`);
    return trustedAttempt({ skipVerify: true, timeoutMs: f.timeoutMs });
  }
  return trustedAttempt({ ...(f.ca !== undefined ? { caPem: readCa(resolve(f.cwd, f.ca)) } : {}), timeoutMs: f.timeoutMs });
}

/** Why forward cannot go on at relay address `url` when `err` (or its cause) is a certificate whose CA is not trusted here; else undefined. */
export function untrustedRelay(url: string, err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return isUntrustedCert(code) ? `${untrustedCertMessage(url, code!)}, or pass it with --ca FILE` : undefined;
}

/** The CAs a wss:// relay address is checked against with --ca FILE: the usual roots and FILE's (as for an app). */
export function relayCas(ca: string, cwd: string): string[] {
  return [...rootCertificates, readCa(resolve(cwd, ca))];
}

function readCa(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const problem = caTextProblem(pem);
  if (problem) throw new UsageError(`--ca: ${file} ${problem}`);
  return pem;
}
