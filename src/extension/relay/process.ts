// The relay process the editor starts (Start Relay): the bundled CLI run with the editor's Node,
// its secret and forward target in a 0600 config file (never argv). It is "ours" only once it has
// printed its ready line (`--ready json`, src/core/relay/ready.ts): a port already in use or a data
// folder another relay holds makes it exit, and that exit is reported; the editor never attaches
// to whatever else answers the port.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_PORT_IN_USE, parseRelayReady, tokenFilePath } from '../../core/relay/ready';

export interface RelayProcessOptions {
  /** dist/cli.js */
  cliPath: string;
  /** 0: any free port */
  port: number;
  dataDir: string;
  secrets: string[];
  forward: string[];
  /** Node to run the CLI with (the editor's, with ELECTRON_RUN_AS_NODE). */
  execPath?: string;
  log?: (line: string) => void;
  /** How long to wait for the relay's ready line (ms). */
  startTimeoutMs?: number;
}

export interface StartedRelay {
  port: number;
  token: string;
}

/** The relay could not start; `message` says why in words (port in use, data folder locked, …). */
export class RelayStartError extends Error {
  override name = 'RelayStartError';
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
  }
}

export const CONFIG_FILE = 'editor-relay.json';

/** Writes `<dataDir>/editor-relay.json` (mode 0600) with the secrets and forward targets. */
export async function writeRelayConfig(dataDir: string, config: { secrets: string[]; forward: string[] }): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, CONFIG_FILE);
  await writeFile(path, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its mode on write
  return path;
}

export class RelayProcess {
  private child: ChildProcess | undefined;
  private readonly exitListeners = new Set<(code: number | null, output: string) => void>();

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Told when a started relay exits by itself (not through stop()). */
  onExit(listener: (code: number | null, output: string) => void): { dispose(): void } {
    this.exitListeners.add(listener);
    return { dispose: () => this.exitListeners.delete(listener) };
  }

  async start(o: RelayProcessOptions): Promise<StartedRelay> {
    if (this.child) throw new RelayStartError('The relay started here is already running.', null);
    const config = await writeRelayConfig(o.dataDir, { secrets: o.secrets, forward: o.forward });
    const args = [o.cliPath, 'relay', '--port', String(o.port), '--data', o.dataDir, '--config', config, '--ready', 'json'];
    o.log?.(`starting relay: ${args.map((a) => JSON.stringify(a)).join(' ')}`);
    const child = spawn(o.execPath ?? process.execPath, args, { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    let stdout: string | undefined = ''; // until the ready line
    const ready = await new Promise<{ port: number; tokenFile: string | null }>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new RelayStartError(`The relay did not start within ${(o.startTimeoutMs ?? 15_000) / 1000} s: ${lastLines(output) || 'no output'}`, null));
      }, o.startTimeoutMs ?? 15_000);
      const onData = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        output = (output + text).slice(-8000);
        for (const line of text.split(/\r?\n/)) if (line.trim()) o.log?.(`[relay] ${redactToken(line)}`);
      };
      child.stdout!.on('data', (chunk: Buffer) => {
        onData(chunk);
        if (stdout === undefined) return;
        stdout += chunk.toString('utf8');
        const r = parseRelayReady(stdout);
        if (r) {
          stdout = undefined;
          clearTimeout(timer);
          resolve({ port: Number(new URL(r.url).port), tokenFile: r.tokenFile });
        }
      });
      child.stderr!.on('data', onData);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new RelayStartError(`The relay could not be run: ${err.message}`, null));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new RelayStartError(startFailure(code, output, o.port), code));
      });
    }).catch((err: unknown) => {
      if (this.child === child) this.child = undefined;
      throw err;
    });
    child.once('exit', (code) => {
      if (this.child !== child) return; // stop() ended it
      this.child = undefined;
      for (const l of [...this.exitListeners]) l(code, output);
    });
    const token = (await readFile(ready.tokenFile ?? tokenFilePath(o.dataDir), 'utf8')).trim();
    return { port: ready.port, token };
  }

  /** Ends the relay started here (SIGTERM, then SIGKILL after 5 s). */
  async stop(): Promise<boolean> {
    const child = this.child;
    if (!child) return false;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    return true;
  }

  dispose(): void {
    this.child?.kill('SIGTERM');
    this.child = undefined;
  }
}

/** Why a relay exited during start-up, in words: the port, the data folder's lock, or its last lines. */
export function startFailure(code: number | null, output: string, port: number): string {
  if (code === EXIT_PORT_IN_USE) {
    return `Port ${port} is already in use: another relay or program listens there. Stop it, or set serviceHooks.relay.port to a free port (0 picks one). To use a relay started elsewhere, run "Connect to Relay…".`;
  }
  return `The relay exited during start-up (code ${code ?? 'signal'}): ${lastLines(output) || 'no output'}`;
}

/**
 * What the relay said last, for a message: its last two lines on one line, without blank lines,
 * stack frames (`at …`) or any line that mentions the token; '' when nothing is left.
 */
export function lastLines(output: string): string {
  return output
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^at /.test(l) && !/token/i.test(l))
    .slice(-2)
    .join(' ');
}

/** The relay prints its token once (`relay token (shown once; stored in PATH): TOKEN`): the last word after the last `: ` goes, whatever PATH holds (c:\\…). */
export function redactToken(line: string): string {
  return /token/i.test(line) ? line.replace(/(token\b.*:\s*)\S+\s*$/i, '$1<redacted>') : line;
}
