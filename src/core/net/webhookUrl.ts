// The service's rule for a webhook's payload URL, in one place: the emulator's API validation
// (relay/emulator/validate.ts, 400 with the problem) and the editor's URL step (Add Webhook's
// validateInput, as you type) both call webhookUrlProblem. A URL passes when it is an absolute
// http(s) URL written out with a host (`http:/x` is refused, though URL parsing would read a host
// into it), without white space, and not naming a forbidden address (address.ts: link-local,
// unspecified such as 0.0.0.0, cloud metadata). Host names are not resolved here.
import { forbiddenTarget } from './address';

export type WebhookUrlProblem =
  { kind: 'not-absolute' } | { kind: 'scheme'; scheme: string } | { kind: 'no-host' } | { kind: 'spaces' } | { kind: 'forbidden'; host: string; why: string };

/** What is wrong with `url` (exactly as it would be sent), or undefined when the service takes it. */
export function webhookUrlProblem(url: string): WebhookUrlProblem | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { kind: 'not-absolute' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { kind: 'scheme', scheme: u.protocol.slice(0, -1) };
  if (!u.hostname || !/^https?:\/\/[^/?#\s]/i.test(url.trim())) return { kind: 'no-host' };
  if (/\s/.test(url)) return { kind: 'spaces' };
  const why = forbiddenTarget(u);
  if (why) return { kind: 'forbidden', host: u.hostname, why };
  return undefined;
}
