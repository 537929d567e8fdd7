// Delivery signing (spec §5): `sha256=<lowercase hex HMAC-SHA-256 of the raw body>`.
// Works on raw bytes only; never parses or re-serializes a body.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
/** The event type of a delivery (the name is the emulator's choice: the spec does not show it). */
export const EVENT_HEADER = 'X-Service-Event';
/** The delivery's unique id (the name is the emulator's choice: the spec does not show it). */
export const DELIVERY_HEADER = 'X-Service-Delivery';
const PREFIX = 'sha256=';
const HEX_DIGEST = /^[0-9a-f]{64}$/;

export type Bytes = Uint8Array | string;

export type VerifyFailure = 'missing' | 'malformed' | 'mismatch';
export type VerifyResult = { ok: true; index: number } | { ok: false; reason: VerifyFailure };

function toBuffer(b: Bytes): Buffer {
  return typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Keys of the string secrets seen (a relay checks every delivery against the same few). */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 256;

/**
 * A string secret as a KeyObject, made once: createHmac with a KeyObject skips converting and
 * importing the key on every call (about a quarter of an HMAC of 1 KB, measured).
 */
function keyOf(secret: Bytes): KeyObject | Buffer {
  if (typeof secret !== 'string') return toBuffer(secret);
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    keys.set(secret, (key = createSecretKey(Buffer.from(secret, 'utf8'))));
  }
  return key;
}

/** HMAC-SHA-256 digest bytes of `body` keyed with `secret`. */
export function digest(secret: Bytes, body: Bytes): Buffer {
  return createHmac('sha256', keyOf(secret)).update(toBuffer(body)).digest();
}

function isEmpty(secret: Bytes): boolean {
  return typeof secret === 'string' ? secret.length === 0 : secret.byteLength === 0;
}

/** The header value for `body`: `sha256=` followed by 64 lowercase hex digits. */
export function sign(secret: Bytes, body: Bytes): string {
  if (isEmpty(secret)) {
    throw new TypeError('sign: secret must not be empty');
  }
  return PREFIX + digest(secret, body).toString('hex');
}

/**
 * Checks `header` against every secret in constant time (per secret) on the raw bytes.
 * Returns the index of the matching secret, or why none matched. Expected failures are
 * values; a call without any secret is a programmer error and throws. An empty secret never
 * matches: HMAC with an empty key is a signature anyone can make.
 */
export function verify(body: Bytes, header: string | undefined | null, secrets: readonly Bytes[]): VerifyResult {
  if (secrets.length === 0) throw new TypeError('verify: at least one secret is required');
  if (header === undefined || header === null || header === '') return { ok: false, reason: 'missing' };
  const value = header.trim();
  if (!value.startsWith(PREFIX) || !HEX_DIGEST.test(value.slice(PREFIX.length))) {
    return { ok: false, reason: 'malformed' };
  }
  const given = Buffer.from(value.slice(PREFIX.length), 'hex');
  let match = -1;
  // Check every secret, without stopping early, so timing does not reveal which one matched.
  secrets.forEach((secret, i) => {
    if (timingSafeEqual(digest(secret, body), given) && match < 0 && !isEmpty(secret)) match = i;
  });
  return match >= 0 ? { ok: true, index: match } : { ok: false, reason: 'mismatch' };
}

export function describeVerifyFailure(reason: VerifyFailure): string {
  switch (reason) {
    case 'missing':
      return `the ${SIGNATURE_HEADER} header is missing`;
    case 'malformed':
      return `the ${SIGNATURE_HEADER} header is not of the form sha256=<64 lowercase hex digits>`;
    case 'mismatch':
      return 'the signature does not match the body with any configured secret';
  }
}
