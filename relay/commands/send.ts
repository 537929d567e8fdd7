// `service-hooks send <event> --to URL`: one signed sample delivery to any receiver (like
// `stripe trigger`). A --payload file goes byte-exact; otherwise a sample from src/core/events.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { resolve } from 'node:path';
import { request } from 'undici';
import { EVENT_TYPES, isEventType, samplePayload } from '../../src/core/events';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, sign } from '../../src/core/signing';
import { testDeliveryId } from '../../src/core/testSend';
import { defineCommand } from '../cli/args';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { isUntrustedCert, untrustedCertMessage } from '../cli/tlsTrust';
import { tlsHint } from '../shared/probe';
import { redact } from '../shared/redact';

const EVENTS = [...EVENT_TYPES, 'ping'] as const;

const help = `Usage: service-hooks send <event> --to URL [options]

Sends one delivery the way the service does: POST URL with the event payload, signed with
X-Service-Signature when --secret is given. Prints the answer's status and the time taken.
Exit 0 on a 2xx answer, 1 on any other answer or when the receiver cannot be reached.

<event> is one of: ${EVENTS.join(', ')}

Options:
  --to URL          the receiver (http or https)
  --secret S        sign the body with S (header ${SIGNATURE_HEADER}: sha256=<hex>)
  --payload FILE    send FILE's bytes exactly as they are (must be valid JSON); '-' reads stdin.
                    Default: a realistic sample payload for <event>
  --repo OWNER/REPO repository named in the sample payload (default acme/widgets)
  --header K:V      extra request header (repeatable); overrides the defaults below
  --timeout MS      give up after MS milliseconds (default 10000)

Headers sent: Content-Type: application/json, X-Service-Event: <event>,
X-Service-Delivery: test-<random UUID> (marks a test send: the editor shows it as such and
does not count it as one of the service's deliveries), User-Agent: service-hooks-cli, and the signature.

An https receiver whose certificate a CA of your own signed (a team relay, a test CA): set
NODE_EXTRA_CA_CERTS to that CA's PEM file; an untrusted certificate is reported as such.

Examples:
  service-hooks send push --to http://127.0.0.1:3000/webhook --secret s3cret
  service-hooks send issue --to http://127.0.0.1:8788/hooks --payload issue.json --header X-Trace:1
`;

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `K:V` → [K, V]; the name must be an HTTP token, the value free of line breaks. */
export function parseHeader(text: string): [string, string] {
  const i = text.indexOf(':');
  const name = i > 0 ? text.slice(0, i).trim() : '';
  const value = i > 0 ? text.slice(i + 1).trim() : '';
  if (!HEADER_NAME.test(name)) throw new UsageError(`--header must look like Name:value, got '${text}'`);
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value must not contain line breaks`);
  return [name, value];
}

/** Offset of the first JSON syntax error in `text` (RFC 8259), or -1 when it parses. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const lit = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++;
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch < ' ') fail();
      if (ch === '"') return void i++;
      if (ch === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m || m[0] === '-' || m[0] === '') fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === '}') return void i++;
        if (text[i] !== ',') fail();
        i++;
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ']') return void i++;
        if (text[i] !== ',') fail();
        i++;
      }
    }
    if (ch === '"') return string();
    if (ch === 't') return lit('true');
    if (ch === 'f') return lit('false');
    if (ch === 'n') return lit('null');
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return number();
    fail();
  };
  try {
    value();
    ws();
    return i < text.length ? i : -1;
  } catch (at) {
    if (typeof at === 'number') return at;
    throw at;
  }
}

/** Why `text` is not JSON, with the line and column of the first error. */
export function jsonError(text: string, err: Error): string {
  const at = jsonErrorOffset(text);
  if (at < 0) return err.message;
  const before = text.slice(0, at).split('\n');
  const found = at >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(text[at])}`;
  return `${found} at line ${before.length}, column ${before[before.length - 1]!.length + 1} (offset ${at})`;
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

/** The payload file's bytes, checked to be UTF-8 JSON (never re-serialised). */
async function readPayload(file: string, io: CliIO): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = file === '-' ? await readStdin(io.stdin) : readFileSync(resolve(io.cwd, file));
  } catch (err) {
    throw new UsageError(`--payload ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const name = file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`--payload ${name}: not valid UTF-8`);
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--payload ${name} is not valid JSON: ${jsonError(text, err as Error)}`);
  }
  return bytes;
}

function parseRepo(value: string | undefined): { owner: string; repo: string } {
  if (value === undefined) return { owner: 'acme', repo: 'widgets' };
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(value);
  if (!m) throw new UsageError(`--repo must be OWNER/REPO, got '${value}'`);
  return { owner: m[1]!, repo: m[2]! };
}

function excerpt(text: string, max = 200): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}

export default defineCommand({
  help,
  options: {
    to: { type: 'string' },
    secret: { type: 'string' },
    payload: { type: 'string' },
    repo: { type: 'string' },
    header: { type: 'string', multiple: true },
    timeout: { type: 'string' },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError(`give exactly one event: ${EVENTS.join(', ')}`);
    const event = positionals[0]!;
    if (event !== 'ping' && !isEventType(event)) throw new UsageError(`unknown event '${event}'; expected one of: ${EVENTS.join(', ')}`);
    if (values.to === undefined) throw new UsageError('--to URL is required');
    let url: URL;
    try {
      url = new URL(values.to);
    } catch {
      throw new UsageError(`--to must be an absolute http(s) URL, got '${values.to}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--to must be an http(s) URL, got '${values.to}'`);
    if (values.secret === '') throw new UsageError('--secret must not be empty');
    const timeout = values.timeout === undefined ? 10_000 : Number(values.timeout);
    if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError(`--timeout must be a whole number of milliseconds, got '${values.timeout}'`);
    const extra = (values.header ?? []).map(parseHeader);
    const repo = parseRepo(values.repo);

    const body = values.payload !== undefined ? await readPayload(values.payload, io) : Buffer.from(JSON.stringify(samplePayload(event, repo)));
    const deliveryId = testDeliveryId(randomUUID()); // marks a test send: the editor does not count it as the service's
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      [EVENT_HEADER]: event,
      [DELIVERY_HEADER]: deliveryId,
      'User-Agent': 'service-hooks-cli',
    };
    if (values.secret !== undefined) headers[SIGNATURE_HEADER] = sign(values.secret, body);
    for (const [k, v] of extra) {
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
      headers[k] = v;
    }

    const shown = redact(url.href); // no user:password@, ?token= value or path secret on the screen
    io.stdout.write(`POST ${shown}  ${event}  delivery ${deliveryId}  ${body.length} bytes${values.secret !== undefined ? '  signed' : '  unsigned'}\n`);
    const started = performance.now();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeout);
    const onStop = () => abort.abort();
    io.stopSignal.addEventListener('abort', onStop, { once: true });
    try {
      const res = await request(url, { method: 'POST', headers, body, signal: abort.signal, headersTimeout: timeout, bodyTimeout: timeout });
      const text = await res.body.text();
      const ms = Math.round(performance.now() - started);
      const reason = STATUS_CODES[res.statusCode];
      io.stdout.write(`${res.statusCode}${reason ? ` ${reason}` : ''} in ${ms} ms\n`);
      if (text.trim()) io.stdout.write(`${excerpt(text)}\n`);
      return res.statusCode >= 200 && res.statusCode < 300 ? EXIT.ok : EXIT.failure;
    } catch (err) {
      const e = err as { code?: string; message?: string; cause?: { code?: string } };
      const cutOff = !abort.signal.aborted && (e.code === 'UND_ERR_SOCKET' || e.code === 'ECONNRESET');
      const code = e.code ?? e.cause?.code;
      const why = abort.signal.aborted
        ? io.stopSignal.aborted
          ? 'interrupted'
          : `no answer within ${timeout} ms`
        : isUntrustedCert(code)
          ? untrustedCertMessage(shown, code!, "the receiver's")
          : (cutOff && (await tlsHint(url))) || [e.code, e.message].filter(Boolean).join(' ');
      io.stderr.write(`service-hooks send: could not deliver to ${shown}: ${why}\n`);
      return EXIT.failure;
    } finally {
      clearTimeout(timer);
      io.stopSignal.removeEventListener('abort', onStop);
    }
  },
});
