// Helpers for the public-relay tests: the CLI bundle as a child process with its own environment
// (NODE_EXTRA_CA_CERTS, SERVICE_HOOKS_RELAY_TOKEN), a relay that may listen on https, and raw
// API calls over http or https with a given CA.
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import { cli, type RelayProcess } from './helpers';

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

/** Spawns `node cli.js relay --port 0 ARGS` and waits for `relay listening on http(s)://127.0.0.1:PORT`. */
export async function spawnRelayWith(args: string[], env: Record<string, string> = {}): Promise<RelayProcess> {
  const child = spawn(process.execPath, [await cli(), 'relay', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const found = await new Promise<[string, number]>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /relay listening on (https?):\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve([m[1]!, Number(m[2])]);
    });
    void exited.then((code) => reject(new Error(`relay exited with ${code}: ${err}`)));
  });
  return {
    child,
    port: found[1],
    url: `${found[0]}://127.0.0.1:${found[1]}`,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
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
