// Entry of the integration suite, run inside a VS Code extension host: by @vscode/test-electron
// (test/integration/runTest.ts) where VS Code can be downloaded, and by scripts/run-integration.mjs
// inside code-server (the workbench URL's `payload`, scripts/lib/code-server.mjs). Built by test/integration/build.mjs to
// dist/test/integration/suite/index.js.
//
// The console of the extension host is not visible to the code-server runner, so results also go to
// a reporter file: $SERVICE_HOOKS_TEST_REPORT, else <repo>/test-results/integration.json. It is
// rewritten after every test, so a hang still leaves the results so far.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Mocha from 'mocha';

export interface TestRecord {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

export interface SuiteReport {
  startedAt: string;
  finishedAt?: string;
  done: boolean;
  passes: number;
  failures: number;
  pending: number;
  tests: TestRecord[];
  /** measurements the suite records (activation time etc.), not assertions */
  figures: Record<string, number | string>;
}

export const figures: Record<string, number | string> = {};

export function reportPath(): string {
  return process.env.SERVICE_HOOKS_TEST_REPORT || resolve(__dirname, '..', '..', '..', '..', 'test-results', 'integration.json');
}

function write(report: SuiteReport): void {
  const path = reportPath();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
  const lines = report.tests.map(
    (t) =>
      `${t.state === 'passed' ? 'ok  ' : t.state === 'failed' ? 'FAIL' : 'skip'} ${t.title}${t.error ? `\n     ${t.error.split('\n').join('\n     ')}` : ''}`,
  );
  lines.push('', `${report.passes} passing, ${report.failures} failing, ${report.pending} pending${report.done ? '' : ' (running)'}`);
  writeFileSync(path.replace(/\.json$/, '') + '.txt', lines.join('\n') + '\n');
}

/** Spec output on the console plus the report file. */
class FileReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const report: SuiteReport = { startedAt: new Date().toISOString(), done: false, passes: 0, failures: 0, pending: 0, tests: [], figures };
    write(report);
    runner.on('pass', (t) => {
      report.passes++;
      report.tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration });
      write(report);
    });
    runner.on('fail', (t, err: Error) => {
      report.failures++;
      report.tests.push({ title: t.fullTitle(), state: 'failed', error: `${err.message}\n${(err.stack ?? '').split('\n').slice(1, 6).join('\n')}` });
      write(report);
    });
    runner.on('pending', (t) => {
      report.pending++;
      report.tests.push({ title: t.fullTitle(), state: 'pending' });
      write(report);
    });
    runner.once('end', () => {
      report.done = true;
      report.finishedAt = new Date().toISOString();
      write(report);
    });
  }
}

export async function run(): Promise<void> {
  // SERVICE_HOOKS_INTEGRATION_GREP: only the tests whose full title matches (for working on a few).
  const grep = process.env.SERVICE_HOOKS_INTEGRATION_GREP || undefined;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: FileReporter as unknown as string, ...(grep ? { grep } : {}) });
  // The test files are bundled into this file: expose the bdd globals, then load them.
  mocha.suite.emit('pre-require', globalThis, join(__dirname, 'suite'), mocha);
  await import('./extension.test');
  await import('./ux.test');
  await import('./relay.test');
  await import('./relayTls.test');
  await import('./forwardEditor.test');
  await import('./documentedService.test');
  await import('./portWorkflows.test');
  await import('./resumeAndSamples.test'); // issue 28 items 7-11, 13
  await import('./editorSeams.test'); // issue 36 items 14-20
  await import('./agentTools.test'); // issue 39 item 3
  const failures = await new Promise<number>((resolveRun) => mocha.run(resolveRun));
  // A suite with no tests or any pending test is a failure: nothing may be skipped silently.
  const pending = mocha.suite.total() === 0;
  if (failures > 0 || pending) throw new Error(`${failures} integration test(s) failed${pending ? ' (no tests ran)' : ''}; see ${reportPath()}`);
}
