// Self-hosted runner set-up (spec §5 "Runner registration"): the command line the editor types
// into a terminal for the user to read and run. The installer is downloaded to a file (curl -f: an
// HTTP error fails the step) and run from there, never piped into sh; each step runs only if the
// one before succeeded (&&). Every value is validated and shell-quoted; the token stays in an
// environment variable and never appears on the line.
import { baseUrlProblem } from '../input/validate';

export const RUNNER_DIR = './service-runner';

/** POSIX shell single-quoting. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export type RunnerPlan = { ok: true; steps: string[]; line: string } | { ok: false; problem: string };

/** The steps, and the one line that runs them in order, for the service at `baseUrl`. */
export function runnerCommands(baseUrl: string, tokenEnvVar = 'SERVICE_RUNNER_TOKEN', dir = RUNNER_DIR): RunnerPlan {
  const problem = baseUrlProblem(baseUrl);
  if (problem) return { ok: false, problem };
  if (!/^[A-Z_][A-Z0-9_]*$/.test(tokenEnvVar)) return { ok: false, problem: `${tokenEnvVar} is not an environment variable name` };
  // eslint-disable-next-line no-control-regex
  if (!dir || /[\u0000-\u001f\u007f]/.test(dir)) return { ok: false, problem: 'the runner folder name is not usable' };
  const base = baseUrl.trim().replace(/\/+$/, '');
  const runner = `${shq(dir)}/runner`;
  const steps = [
    `curl -fsSL ${shq(`${base}/runner/install.sh`)} -o install.sh`,
    `sh install.sh --dir ${shq(dir)}`,
    `${runner} configure --url ${shq(base)} --token "$${tokenEnvVar}"`,
    `${runner} run`,
  ];
  return { ok: true, steps, line: steps.join(' && ') };
}
