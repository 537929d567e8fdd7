// Self-hosted runner set-up (spec §5 "Runner registration"): the command line the editor types
// into a terminal for the user to read and run. The installer is downloaded to a file (curl -f: an
// HTTP error fails the step) and run from there, never piped into sh; each step runs only if the
// one before succeeded (&&). Every value is validated and shell-quoted; the token stays in an
// environment variable and never appears on the line. Everything goes into one folder given by
// absolute path (the editor passes its global storage), so nothing lands in the workspace.
import { baseUrlProblem } from '../input/validate';

/** The runner's own folder inside the set-up folder. */
export const RUNNER_DIR = 'service-runner';

/** POSIX shell single-quoting. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export type RunnerPlan = { ok: true; steps: string[]; line: string } | { ok: false; problem: string };

/** The steps, and the one line that runs them in order, for the service at `baseUrl`, in the absolute folder `folder`. */
export function runnerCommands(baseUrl: string, folder: string, tokenEnvVar = 'SERVICE_RUNNER_TOKEN'): RunnerPlan {
  const problem = baseUrlProblem(baseUrl);
  if (problem) return { ok: false, problem };
  if (!/^[A-Z_][A-Z0-9_]*$/.test(tokenEnvVar)) return { ok: false, problem: `${tokenEnvVar} is not an environment variable name` };
  // eslint-disable-next-line no-control-regex
  if (!folder || /[\u0000-\u001f\u007f]/.test(folder)) return { ok: false, problem: 'the runner folder name is not usable' };
  if (!folder.startsWith('/')) return { ok: false, problem: `the runner folder must be an absolute path, got ${folder}` };
  const base = baseUrl.trim().replace(/\/+$/, '');
  const dir = folder.replace(/\/+$/, '') || '/';
  const installer = shq(`${dir}/install.sh`);
  const runner = shq(`${dir}/${RUNNER_DIR}/runner`);
  const steps = [
    `mkdir -p ${shq(dir)}`,
    `curl -fsSL ${shq(`${base}/runner/install.sh`)} -o ${installer}`,
    `sh ${installer} --dir ${shq(`${dir}/${RUNNER_DIR}`)}`,
    `${runner} configure --url ${shq(base)} --token "$${tokenEnvVar}"`,
    `${runner} run`,
  ];
  return { ok: true, steps, line: steps.join(' && ') };
}
