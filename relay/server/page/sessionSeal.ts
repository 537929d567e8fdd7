// What a page session keeps of its secrets, so that its record (./sessions.ts), which a shared store
// holds for every relay instance, gives neither the session nor the token away: the record's name
// is the SHA-256 of the cookie's session id, the token is sealed (AES-256-GCM) with a key derived
// from that id, the tab's key is kept as its SHA-256, and the CSRF token is derived from the id.
// Only a request carrying the cookie can open its session's token.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const b64 = (b: Buffer) => b.toString('base64url');
const derive = (id: string, purpose: string) => createHmac('sha256', id).update(purpose).digest();

/** The record's name of session `id`. */
export function refOf(id: string): string {
  return b64(createHash('sha256').update(id).digest());
}

/** A SHA-256 of `text` (a token: its sessions are counted together; a tab key: checked against). */
export function digest(text: string): string {
  return b64(createHash('sha256').update(text).digest());
}

/** The CSRF token of session `id` (sent with every state-changing request). */
export function csrfOf(id: string): string {
  return b64(derive(id, 'sh-page-csrf-v1'));
}

/** `token` sealed with session `id`'s key: iv, tag and ciphertext, base64url. */
export function seal(id: string, token: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', derive(id, 'sh-page-token-v1'), iv);
  const body = Buffer.concat([c.update(token, 'utf8'), c.final()]);
  return b64(Buffer.concat([iv, c.getAuthTag(), body]));
}

/** The token `sealed` holds, or undefined when `id` is not its session's (or the record was altered). */
export function unseal(id: string, sealed: string): string | undefined {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 29) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', derive(id, 'sh-page-token-v1'), raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Whether `given` equals `expected` (constant time in the length of `expected`). */
export function same(expected: string, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
