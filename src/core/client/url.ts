// Base URL normalisation and path building for the service API (prefix /api/v1, spec §9).
export const API_PREFIX = '/api/v1';

/**
 * `https://host/prefix/` → `https://host/prefix`. Query and fragment are dropped, and a
 * trailing `/api/v1` given by the user is not doubled. Throws TypeError for non-http(s) URLs.
 */
export function normaliseBaseUrl(baseUrl: string): string {
  let u: URL;
  try {
    u = new URL(baseUrl.trim());
  } catch {
    throw new TypeError(`service base URL must be an absolute http(s) URL, got '${baseUrl}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TypeError(`service base URL must be http or https, got '${u.protocol}'`);
  }
  if (u.username || u.password) throw new TypeError('service base URL must not carry credentials; use the token');
  let path = u.pathname.replace(/\/+$/, '');
  if (path.toLowerCase().endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length);
  return `${u.protocol}//${u.host}${path}`;
}

/**
 * One URL path segment, percent-encoded. `.` and `..` are refused: URL parsing resolves them
 * (even as %2E%2E), so they could never address a resource and would climb the path.
 */
export function segment(value: string | number, what: string): string {
  const s = String(value);
  if (s.length === 0) throw new TypeError(`${what} must not be empty`);
  if (s === '.' || s === '..') throw new TypeError(`${what} must not be '${s}'`);
  return encodeURIComponent(s);
}

/** Tagged template: `api\`/repos/${owner}/${repo}/webhooks\`` → `/api/v1/repos/<encoded>/<encoded>/webhooks`. */
export function api(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  const shape = strings.join('{}');
  let out = API_PREFIX + strings[0];
  values.forEach((v, i) => {
    out += segment(v, `path segment ${i + 1} of ${shape}`) + strings[i + 1];
  });
  return out;
}
