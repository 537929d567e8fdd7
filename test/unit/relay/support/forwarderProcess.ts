// A `service-hooks forward` child process whose output a test awaits line by line (no sleeps).
import { spawn, type ChildProcess } from 'node:child_process';
import { cli, type TargetApp } from './helpers';
import { childEnv } from './publicHelpers';
import { childOutput } from '../../../support/childOutput';

export interface Forwarder {
  child: ChildProcess;
  /** stdout and stderr as they came, interleaved. */
  out: () => string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once the output matches `re`; rejects when the forwarder exits first. */
  saw(re: RegExp): Promise<void>;
  exited: Promise<number | null>;
}

export async function forwarder(args: string[], env: Record<string, string> = {}): Promise<Forwarder> {
  const child = spawn(process.execPath, [await cli(), 'forward', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  const output = childOutput(child, 'forward');
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return { child, out: output.out, stdout: output.stdout, stderr: output.stderr, saw: (re) => output.saw(re), exited };
}

/** Child processes and apps a test starts, killed and closed after each test (registers mocha's afterEach). */
export function processesPerTest(): { children: ChildProcess[]; apps: TargetApp[] } {
  const children: ChildProcess[] = [];
  const apps: TargetApp[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const a of apps.splice(0)) await a.close();
  });
  return { children, apps };
}

/** What starts every text line of `forward` (issue 42 item 7): the time (ISO, UTC) and the relay address (host:port). */
export const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (?:\[[0-9a-f:]+\]|[\w.-]+):\d+ /;

/** The stamp of a line that came through the relay at `url` (its host:port), as a pattern's source. */
export function stampOf(url: string): string {
  return `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z ${new URL(url).host.replace(/[.[\]]/g, '\\$&')} `;
}

/** `text` with every line's stamp taken off (asserted apart, once): what the line says. */
export function bare(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(STAMP, ''))
    .join('\n');
}
