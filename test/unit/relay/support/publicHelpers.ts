// Helpers for the public-relay tests: the CLI bundle as a child process with its own environment
// (NODE_EXTRA_CA_CERTS, SERVICE_HOOKS_RELAY_TOKEN), a relay that may listen on https, and raw
// API calls over http or https with a given CA.
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { cli, spawnRelay, type RelayProcess } from './helpers';

/** Environment for children: this process's, minus the variables these tests set on purpose. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SERVICE_HOOKS_RELAY_TOKEN;
  delete env.NODE_EXTRA_CA_CERTS;
  return { ...env, ...extra };
}

/** Runs `node cli.js ARGS` to its end. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [await cli(), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { code, stdout, stderr };
}

/** `spawnRelay` with the children's environment (childEnv) plus `env`. */
export function spawnRelayWith(args: string[], env: Record<string, string> = {}): Promise<RelayProcess> {
  return spawnRelay(args, childEnv(env));
}

export interface Answer {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One API call with a bearer token; `ca` trusts a test CA for https. */
export async function call(method: string, url: string, token: string | undefined, body?: unknown, ca?: Buffer): Promise<Answer> {
  const dispatcher = ca ? new Agent({ connect: { ca } }) : undefined;
  const res = await request(url, {
    method: method as 'GET',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    dispatcher,
  });
  const text = await res.body.text();
  let json: unknown = text;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  await dispatcher?.close();
  return { status: res.statusCode, json };
}
