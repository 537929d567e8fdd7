// Signature doctor: explains in words why X-Service-Signature does not match a body.
// Pure: no I/O. Tries the usual ways a body or header gets changed between signer and checker.
import { digest, SIGNATURE_HEADER, type Bytes } from './signing';

export interface SignatureExplanation {
  /** True when the header matches the body with one of the secrets as-is. */
  ok: boolean;
  /** Index of the secret that matched the body as-is. */
  secretIndex?: number;
  findings: string[];
}

export interface ExplainInput {
  body: Bytes;
  header: string | undefined | null;
  /** The secrets to try; the first is the one expected, the others are other known secrets. */
  secrets: readonly Bytes[];
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function toBuffer(b: Bytes): Buffer {
  return typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Body variants the sender may have signed, in words describing what changed since. */
function variants(body: Buffer): { bytes: Buffer; what: string }[] {
  const out: { bytes: Buffer; what: string }[] = [];
  const add = (bytes: Buffer, what: string) => {
    if (!bytes.equals(body) && !out.some((v) => v.bytes.equals(bytes))) out.push({ bytes, what });
  };
  const text = body.toString('utf8');
  // Trailing newlines.
  if (text.endsWith('\r\n'))
    add(body.subarray(0, body.length - 2), 'a trailing CRLF newline was added to the body after signing (the sender signed it without)');
  if (text.endsWith('\n')) add(body.subarray(0, body.length - 1), 'a trailing newline was added to the body after signing (the sender signed it without)');
  add(Buffer.concat([body, Buffer.from('\n')]), 'the trailing newline of the body was dropped after signing (the sender signed it with one)');
  add(Buffer.concat([body, Buffer.from('\r\n')]), 'the trailing CRLF of the body was dropped after signing');
  // Line endings.
  if (text.includes('\r\n')) add(Buffer.from(text.replace(/\r\n/g, '\n'), 'utf8'), 'line endings were changed from LF to CRLF after signing');
  else if (text.includes('\n')) add(Buffer.from(text.replace(/\n/g, '\r\n'), 'utf8'), 'line endings were changed from CRLF to LF after signing');
  // Byte order mark.
  if (body.subarray(0, 3).equals(BOM)) add(body.subarray(3), 'a UTF-8 byte order mark (BOM) was added in front of the body after signing');
  else add(Buffer.concat([BOM, body]), 'the UTF-8 byte order mark (BOM) of the signed body was removed');
  // Charset changes: the signer's bytes were decoded with one charset and re-encoded with another.
  // eslint-disable-next-line no-control-regex -- the ASCII range, from NUL: any other character is not ASCII
  if (/[^\x00-\x7f]/.test(text) && !text.includes('\ufffd') && [...text].every((c) => c.charCodeAt(0) <= 0xff)) {
    add(Buffer.from(text, 'latin1'), 'the charset changed: the body was signed as ISO-8859-1 (latin1) bytes and arrived re-encoded as UTF-8');
  }
  if (body.some((b) => b >= 0x80)) {
    add(Buffer.from(body.toString('latin1'), 'utf8'), 'the charset changed: the body was signed as UTF-8 bytes and arrived re-encoded as ISO-8859-1 (latin1)');
  }
  add(Buffer.from(body.toString('utf8'), 'utf8'), 'the body contains invalid UTF-8 that was replaced (U+FFFD) by the signer');
  // Re-serialized JSON: same value, different bytes.
  let value: unknown;
  let isJson = false;
  try {
    value = JSON.parse(text.replace(/^\ufeff/, ''));
    isJson = true;
  } catch {
    // not JSON
  }
  if (isJson) {
    const forms: [string, string][] = [
      [JSON.stringify(value), 'compact (JSON.stringify without spaces)'],
      [JSON.stringify(value, null, 2), 'pretty-printed with 2 spaces'],
      [JSON.stringify(value, null, 4), 'pretty-printed with 4 spaces'],
      [JSON.stringify(value, null, '\t'), 'pretty-printed with tabs'],
      [JSON.stringify(value, null, 2) + '\n', 'pretty-printed with 2 spaces and a final newline'],
      [
        JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')),
        'compact with non-ASCII characters escaped as \\uXXXX',
      ],
    ];
    for (const [form, words] of forms) {
      add(
        Buffer.from(form, 'utf8'),
        `the body was re-serialized: it is equal as JSON but not byte for byte; the signature matches the ${words} form. Verify and forward the raw bytes, never a re-stringified object`,
      );
    }
  }
  return out;
}

function matches(secrets: readonly Bytes[], body: Buffer, given: Buffer): number {
  let found = -1;
  secrets.forEach((s, i) => {
    if (found < 0 && digest(s, body).equals(given)) found = i;
  });
  return found;
}

function secretWords(i: number, n: number): string {
  return n === 1 ? 'the secret' : i === 0 ? 'the expected secret (#1)' : `secret #${i + 1}`;
}

/**
 * The finding for a delivery whose channel (its identity: a deleted channel, or one whose name a
 * later channel took) is gone: its secrets went with it, and another channel's say nothing about it.
 */
export function channelGone(name: string): string {
  return `the channel ${name} this delivery came to no longer exists (deleted, or its name is now another channel's), so its secret cannot be checked again`;
}

export function explainSignature(input: ExplainInput): SignatureExplanation {
  const body = toBuffer(input.body);
  const secrets = input.secrets.filter((s) => (typeof s === 'string' ? s.length > 0 : s.byteLength > 0));
  const findings: string[] = [];
  if (secrets.length === 0) return { ok: false, findings: ['no secret was given, so the signature cannot be checked'] };
  const raw = input.header ?? '';
  if (raw.trim() === '') {
    return { ok: false, findings: [`the ${SIGNATURE_HEADER} header is missing: the webhook has no secret set, or a proxy dropped the header`] };
  }
  let value = raw.trim();
  if (value !== raw) findings.push('the header value has surrounding whitespace (harmless for this relay, but strict checkers reject it)');
  const hasPrefix = /^sha256=/i.test(value);
  if (!hasPrefix) {
    if (/^sha1=/i.test(value)) {
      return { ok: false, findings: [...findings, 'the header is a sha1= signature; the service signs with sha256= (HMAC-SHA-256)'] };
    }
    findings.push(`the sha256= prefix is missing: the header must be 'sha256=<hex digest>'`);
  } else {
    if (!value.startsWith('sha256=')) findings.push('the prefix is not lower-case: it must be exactly sha256=');
    value = value.slice(7);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    return {
      ok: false,
      findings: [...findings, `the digest is not 64 hexadecimal digits (got ${value.length} characters): it was truncated or is not an HMAC-SHA-256`],
    };
  }
  if (value !== value.toLowerCase()) findings.push('the digest is upper-case: the service sends lower-case hex, and byte-wise comparisons of the header fail');
  const given = Buffer.from(value, 'hex');
  const exact = matches(secrets, body, given);
  const formatOk = findings.length === 0;
  if (exact >= 0) {
    if (exact > 0) {
      findings.push(
        `another known secret matches: the body was signed with ${secretWords(exact, secrets.length)}, not the expected one (a rotated secret, or another webhook's)`,
      );
    } else if (!formatOk) {
      findings.push('the digest itself matches the body with the expected secret once the header format is fixed');
    } else findings.push(`the signature matches the body with ${secretWords(0, secrets.length)}`);
    return { ok: exact === 0 && formatOk, secretIndex: exact, findings };
  }
  for (const v of variants(body)) {
    const i = matches(secrets, v.bytes, given);
    if (i >= 0) {
      findings.push(v.what + (i > 0 ? ` (and it was signed with ${secretWords(i, secrets.length)}, not the expected one)` : ''));
      return { ok: false, findings };
    }
  }
  findings.push(
    `the signature matches neither the body nor any usual transformation of it with ${secrets.length === 1 ? 'the secret' : `any of the ${secrets.length} secrets`}: the secret is most likely different (check the webhook's secret), or the body was changed in another way`,
  );
  return { ok: false, findings };
}
