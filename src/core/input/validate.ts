// Input checks used by the palette flows (QuickPick / InputBox validateInput).
import { webhookUrlProblem } from '../net/webhookUrl';

/**
 * A webhook's payload URL, by the service's rule (src/core/net/webhookUrl.ts, which the emulator
 * applies too): an error message for the input box, or undefined when valid. The URL is trimmed,
 * as Add Webhook sends it.
 */
export function validateWebhookUrl(text: string): string | undefined {
  const t = text.trim();
  if (!t) return 'Enter the payload URL';
  const problem = webhookUrlProblem(t);
  switch (problem?.kind) {
    case undefined:
      return undefined;
    case 'not-absolute':
      return 'Enter an absolute URL, for example https://example.com/webhook';
    case 'scheme':
      return 'The URL must start with http:// or https://';
    case 'no-host':
      return 'The URL needs a host: http://host/…';
    case 'spaces':
      return 'The URL must not contain spaces';
    case 'forbidden':
      return `The service refuses this address: ${problem.why}`;
  }
}

/** CI secret names: letters, digits and underscores, not starting with a digit or the reserved prefix. */
export function validateSecretName(name: string): string | undefined {
  if (!name) return 'Enter a name';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'Use letters, digits and underscores; do not start with a digit';
  if (/^SERVICE_/i.test(name)) return 'Names starting with SERVICE_ are reserved';
  if (name.length > 255) return 'At most 255 characters';
  return undefined;
}

/** The service's rule for an owner or repository name (the emulator's router applies the same). */
export const REPO_NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;

export function validRepoName(name: string): boolean {
  return REPO_NAME_RE.test(name) && name !== '.' && name !== '..';
}

/** owner/repo as the service names them: letters, digits, `.`, `_`, `-`, at most 100 each, not `.` or `..`. */
export function validateRepoText(text: string): string | undefined {
  const parts = text.trim().split('/');
  if (parts.length !== 2) return 'Use owner/repo';
  const bad = parts.find((p) => !validRepoName(p));
  if (bad === undefined) return undefined;
  return bad === '.' || bad === '..' ? `"${bad}" is not a name` : 'Use owner/repo: letters, digits, ".", "_" and "-" (at most 100 each)';
}

/**
 * What is wrong with a service base URL (serviceHooks.baseUrl), or undefined when it is usable:
 * an absolute http(s) URL without credentials and without control characters (which a terminal
 * would act on when the URL is typed into it).
 */
export function baseUrlProblem(text: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return `serviceHooks.baseUrl contains a control character; set it to an address such as http://127.0.0.1:8787`;
  const t = text.trim();
  if (!t) return 'serviceHooks.baseUrl is empty; set it to an address such as http://127.0.0.1:8787';
  let u: URL | undefined;
  try {
    u = new URL(t);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    const guess = /^[\w.-]+(:\d+)?(\/.*)?$/.test(t) ? `: write it as http://${t}` : '; use an http:// or https:// address';
    return `serviceHooks.baseUrl "${t}" is not an http(s) address${guess}`;
  }
  if (u.username || u.password) return 'serviceHooks.baseUrl must not carry a user name or password; sign in with a token instead';
  return undefined;
}
