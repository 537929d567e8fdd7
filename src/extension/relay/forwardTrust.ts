// The https trust of the editor's forward set-ups (issue 38 item 7), the rules of `service-hooks
// forward --ca/--skip-verify` (relay/client/appAttempt.ts, src/core/relay/appTrust.ts): the CA file
// of the machine setting serviceHooks.relay.forwardCa is trusted beside the usual roots, and a
// set-up made with "Skip verification" does not check the certificate of its apps on this machine.
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { caTextProblem } from '../../core/relay/appTrust';
import { routingProblem, routingTargets, type ForwardRouting } from '../../core/relay/forwardRouting';
import type { AppAttempt } from '../../../relay/client/appAttempt';
import type { RelayClientModule } from './connection';

/** How the editor's user trusts a CA and skips the check (in an app's certificate error). */
const WORDS = {
  ca: 'set serviceHooks.relay.forwardCa to the PEM file of the CA that signed it',
  skip: 'pass "Skip verification" in Forward Webhooks to Local App… (an app on this machine)',
  caName: 'a CA',
};

/** Why the CA file at `path` cannot be trusted (in words for the quick input), or undefined ('': none set). */
export function caFileProblem(path: string): string | undefined {
  if (!path) return undefined;
  if (!isAbsolute(path)) return `Give the CA file's full path (${path} is relative).`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `There is no file at ${path}.`;
    if (code === 'EISDIR') return `${path} is a folder: give the CA's PEM file.`;
    return `Cannot read ${path} (${code ?? 'error'}).`;
  }
  const problem = caTextProblem(text);
  return problem ? `${path} ${problem}: give the CA's certificate, not a key or another file.` : undefined;
}

/**
 * The attempt for the apps of `setups`: their own trust per app, the CA file setting read at each
 * attempt (a change applies to the next delivery). A CA file that went bad is told once through
 * `log` and left out (the usual roots still apply).
 */
export function forwardAttempt(
  client: Pick<RelayClientModule, 'trustedAttempt'>,
  setups: readonly ForwardRouting[],
  caFile: () => string,
  timeoutMs: number,
  log: (line: string) => void,
): AppAttempt {
  const skip = new Set(setups.filter((s) => s.skipVerify && !routingProblem(s)).flatMap((s) => routingTargets(s)));
  const skipping = client.trustedAttempt({ skipVerify: true, timeoutMs, words: WORDS });
  let current: { path: string; attempt: AppAttempt } | undefined;
  const verified = (): AppAttempt => {
    const path = caFile();
    if (current?.path === path) return current.attempt;
    const problem = caFileProblem(path);
    if (problem) log(`serviceHooks.relay.forwardCa: ${problem} Forwarding trusts the usual roots only.`);
    const caPem = path && !problem ? readFileSync(path, 'utf8') : undefined;
    current = { path, attempt: client.trustedAttempt({ ...(caPem !== undefined ? { caPem } : {}), timeoutMs, words: WORDS }) };
    return current.attempt;
  };
  return (d, to, signal, extra) => (skip.has(to) ? skipping : verified())(d, to, signal, extra);
}
