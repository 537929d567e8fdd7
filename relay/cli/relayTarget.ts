// How the `deliveries` and `replay` commands find a running relay and its token:
// --relay URL (default http://127.0.0.1:8788), then --token, env SERVICE_HOOKS_RELAY_TOKEN, or <data>/token.
import { readFileSync } from 'node:fs';
import { tokenFilePath } from '../../src/core/relay/ready';
import { DEFAULT_RELAY_URL } from '../../src/core/defaults';
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR } from '../server/index';
import { RelayApi } from '../client/api';
import { UsageError, type CliIO } from './io';
import { tlsHint } from '../shared/probe';
import { isUntrustedCert, untrustedCertMessage } from './tlsTrust';

export const RELAY_TARGET_OPTIONS = {
  relay: { type: 'string' },
  token: { type: 'string' },
  data: { type: 'string' },
} as const;

export const RELAY_TARGET_HELP = `  --relay URL         the relay's address (default http://127.0.0.1:8788)
  --token T           the relay token (or env SERVICE_HOOKS_RELAY_TOKEN)
  --data DIR          read the token from DIR/token instead (default ~/.service-hooks/relay)`;

export function relayApi(values: { relay?: string; token?: string; data?: string }, io: CliIO): RelayApi {
  const baseUrl = values.relay ?? DEFAULT_RELAY_URL;
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl)) throw new UsageError(`--relay must be an http(s) URL, got '${baseUrl}'`);
  let token = values.token ?? io.env.SERVICE_HOOKS_RELAY_TOKEN;
  if (!token) {
    const file = tokenFilePath(resolve(io.cwd, values.data ?? DEFAULT_DATA_DIR));
    try {
      token = readFileSync(file, 'utf8').trim();
    } catch {
      throw new UsageError(`no relay token: pass --token, set SERVICE_HOOKS_RELAY_TOKEN, or --data DIR of the relay (${file} is not readable)`);
    }
  }
  return new RelayApi({ baseUrl, token });
}

/** Runs a relay API call and turns "nothing listens there" into a sentence that says what to do. */
export async function callRelay<T>(baseUrl: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const code = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code;
    if (code === 'ECONNREFUSED')
      throw new Error(`no relay answers at ${baseUrl ?? DEFAULT_RELAY_URL}: start one with \`service-hooks relay\` or pass --relay URL`, { cause: err });
    if (code === 'UND_ERR_SOCKET' && baseUrl?.startsWith('http://')) {
      const hint = await tlsHint(new URL(baseUrl)).catch(() => undefined);
      throw new Error(`the relay at ${baseUrl} closed the connection without answering; ${hint ?? 'if it serves TLS (--tls-cert), use https://'}`, {
        cause: err,
      });
    }
    if (code !== undefined && isUntrustedCert(code)) throw new Error(untrustedCertMessage(baseUrl ?? DEFAULT_RELAY_URL, code), { cause: err });
    throw err;
  }
}
