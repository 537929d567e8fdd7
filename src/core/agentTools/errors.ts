// A tool's failure as a sentence that says what to do next. The hosts say how to sign in and how to
// reach a relay in their own words (the editor: a command; `service-hooks mcp`: an env var or a flag).
import { ServiceError, networkErrorCode, networkErrorText } from '../client/errors';
import { isUntrustedCert } from '../relay/appTrust';

export interface ErrorHints {
  /** e.g. 'run "Service Webhooks: Sign In" in the editor' */
  signIn: string;
  /** e.g. 'start or connect to a relay in the Relay view' */
  relay: string;
}

/** Thrown by a host when a tool needs something the user has to set up first (the message says what). */
export class ToolSetupError extends Error {
  override name = 'ToolSetupError';
}

export function describeToolError(err: unknown, hints: ErrorHints): string {
  if (err instanceof ToolSetupError) return err.message;
  if (err instanceof ServiceError) {
    if (err.kind === 'http' && err.status === 401) return `The service rejected the token (401): ${hints.signIn}.`;
    if (err.kind === 'http' && err.status === 404)
      return `The service has no such webhook or delivery (404): list them again (serviceHooks_listWebhooks, serviceHooks_listDeliveries).`;
    if (err.kind === 'http') return `The service answered ${err.status}: ${err.bodyExcerpt ?? err.message}`;
    if (err.kind === 'network' || err.kind === 'timeout')
      return `Cannot reach the service (${err.kind === 'timeout' ? 'no answer in time' : networkErrorText(err.code)}): check that it runs and its address.`;
    return `The service answered something that is not its API: ${err.message}`;
  }
  const status = (err as { name?: string; status?: number }).name === 'RelayApiError' ? (err as { status: number }).status : undefined;
  if (status === 401) return `The relay refused the token (401): it is wrong, was revoked, or its channel was deleted; ${hints.relay}.`;
  // A channel token asked for another channel's deliveries (or an admin-only call).
  if (status === 403)
    return "The relay's token reaches only its own channel (403): ask for that channel's deliveries, or give the relay's admin token for every channel.";
  if (status === 404) return 'The relay has no such delivery or channel (404): list the deliveries again with serviceHooks_listDeliveries and a channel.';
  if (status !== undefined) return `The relay answered ${status}: ${(err as Error).message}`;
  const untrusted = certificateErrorCode(err);
  if (untrusted)
    return `The relay's TLS certificate is not trusted here (${untrusted}): start it with NODE_EXTRA_CA_CERTS set to the PEM file of the CA that signed it.`;
  const code = networkErrorCode(err);
  if (code) return `Cannot reach it (${networkErrorText(code)}): ${hints.relay}.`;
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOENT') return `No such file: ${e.path ?? 'the path given'}. Give a path relative to the workspace, e.g. .github/workflows/ci.yml.`;
  return `Failed: ${(err as Error)?.message ?? String(err)}`;
}

/** The code of `err` or of its causes (fetch wraps the TLS error in `cause`) when it says a certificate's CA is not trusted here. */
function certificateErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && isUntrustedCert(code)) return code;
  }
  return undefined;
}
