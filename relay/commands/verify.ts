// `service-hooks verify --secret S --signature HEADER [FILE|-]`: checks a delivery's signature
// on the body's raw bytes (src/core/signing), or explains a mismatch with --explain (the doctor).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SIGNATURE_HEADER, describeVerifyFailure, verify } from '../../src/core/signing';
import { defineCommand } from '../cli/args';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { runExplain } from './verify-explain';

const help = `Usage: service-hooks verify --secret S [--secret S2 ...] --signature HEADER [FILE|-] [--explain]

Checks that HEADER (the ${SIGNATURE_HEADER} value, sha256=<hex>) is the HMAC-SHA-256 of the
body's raw bytes keyed with one of the secrets, compared in constant time. The body is read
from FILE, or from stdin when FILE is '-' or absent; its bytes are used exactly as they are.
Exit 0 when the signature is valid, 1 when it is not (with the reason), 2 on usage errors or
an unreadable file.

Options:
  --secret S        a secret to try (repeatable, e.g. the old and new one during rotation);
                    with several, the one that matched is named by its position
  --signature H     the header value as received, e.g. 'sha256=757107ea…'
  --explain         when it does not match, say why: the signature doctor tries the usual
                    mistakes (re-serialised JSON, trailing newline, wrong encoding, other secret)

Examples:
  service-hooks verify --secret s3cret --signature "$SIG" body.json
  curl -s … | service-hooks verify --secret old --secret new --signature "$SIG" -
`;

async function readBody(file: string | undefined, io: CliIO): Promise<Buffer> {
  if (file === undefined || file === '-') {
    if ((io.stdin as { isTTY?: boolean }).isTTY) throw new UsageError('give the body as FILE, or pipe it into stdin');
    const chunks: Buffer[] = [];
    for await (const c of io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    return Buffer.concat(chunks);
  }
  try {
    return readFileSync(resolve(io.cwd, file));
  } catch (err) {
    throw new UsageError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

export default defineCommand({
  help,
  options: {
    secret: { type: 'string', multiple: true },
    signature: { type: 'string' },
    explain: { type: 'boolean' },
  },
  positionals: true,
  async run({ values, positionals }, io) {
    const secrets = values.secret ?? [];
    if (secrets.length === 0) throw new UsageError('give at least one --secret');
    if (secrets.some((s) => s === '')) throw new UsageError('--secret must not be empty');
    if (values.signature === undefined) throw new UsageError(`--signature is required (the ${SIGNATURE_HEADER} header value)`);
    if (positionals.length > 1) throw new UsageError('give at most one FILE (or - for stdin)');
    const body = await readBody(positionals[0], io);

    const result = verify(body, values.signature, secrets);
    // --explain: the exit code still follows verify() (several secrets, a padded header); the
    // doctor's words are added only when the signature does not verify.
    if (values.explain && !result.ok) {
      runExplain({ body, header: values.signature, secrets }, io);
      return EXIT.failure;
    }
    if (result.ok) {
      const which = secrets.length > 1 ? ` with secret #${result.index + 1} of ${secrets.length}` : '';
      io.stdout.write(`signature valid${which} (${body.length} bytes)\n`);
      return EXIT.ok;
    }
    io.stdout.write(`signature invalid: ${describeVerifyFailure(result.reason)}\n`);
    if (result.reason === 'mismatch') io.stdout.write('run again with --explain to look for the usual causes\n');
    return EXIT.failure;
  },
});
