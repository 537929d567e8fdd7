// Set Up Self-Hosted Runner (spec §5): a terminal with the install, configure and run commands
// typed but not run: the user reads them and presses Enter. The runner token is asked with a
// password input and passed through the terminal's environment, so it is never written to
// settings nor shown on the command line. The installer and the runner go into the extension's
// global storage (`<globalStorage>/runner`, or `{ dir }`), never into the workspace. The line is
// typed once the shell is ready (shell integration active): typed earlier, the terminal echoes it
// and then the shell shows it again at its prompt.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { runnerCommands } from '../../core/runner';
import { settings } from '../config';
import { COMMANDS, OPEN_SETTINGS_ACTION } from '../ids';
import { Cancelled, UserError } from '../errors';
import { asArgs } from './pickers';
import type { CommandModule } from './context';

export const RUNNER_TOKEN_ENV = 'SERVICE_RUNNER_TOKEN';
/** How long to wait for the shell to report ready before typing anyway (shells without integration). */
export const SHELL_READY_MS = 10_000;

/** Resolves 'shell-ready' once the terminal's shell integration is active, or 'timeout'. */
function shellReady(terminal: vscode.Terminal): Promise<'shell-ready' | 'timeout'> {
  if (terminal.shellIntegration) return Promise.resolve('shell-ready');
  return new Promise((resolve) => {
    const done = (how: 'shell-ready' | 'timeout') => {
      clearTimeout(timer);
      subs.forEach((s) => s.dispose());
      resolve(how);
    };
    const timer = setTimeout(() => done('timeout'), SHELL_READY_MS);
    const subs = [
      vscode.window.onDidChangeTerminalShellIntegration((e) => e.terminal === terminal && done('shell-ready')),
      vscode.window.onDidCloseTerminal((t) => t === terminal && done('timeout')),
    ];
  });
}

const command: CommandModule = {
  id: COMMANDS.setUpRunner,
  async run(ctx, arg) {
    const args = asArgs<{ token: string; dir: string }>(arg);
    const folder = args.dir ?? join(ctx.extension.globalStorageUri.fsPath, 'runner');
    const plan = runnerCommands(settings().baseUrl, folder, RUNNER_TOKEN_ENV);
    if (!plan.ok) throw new UserError(plan.problem, [OPEN_SETTINGS_ACTION]);
    const token =
      args.token ??
      (await vscode.window.showInputBox({
        title: 'Runner registration token',
        password: true,
        ignoreFocusOut: true,
        // eslint-disable-next-line no-control-regex -- a token with a control character is refused
        validateInput: (v) => (!v.trim() ? 'Enter the token' : /[\u0000-\u001f\u007f]/.test(v) ? 'The token must not contain control characters' : undefined),
      }));
    if (!token) throw new Cancelled();
    // eslint-disable-next-line no-control-regex -- a token with a control character is refused
    if (/[\u0000-\u001f\u007f]/.test(token)) throw new UserError('The runner token must not contain control characters.');
    const terminal = vscode.window.createTerminal({ name: 'Service Runner', env: { [RUNNER_TOKEN_ENV]: token.trim() }, isTransient: true });
    terminal.show();
    const typed = await shellReady(terminal);
    // Typed, not run: the user reads the line and presses Enter.
    terminal.sendText(plan.line, false);
    return { terminal: terminal.name, commands: plan.steps, line: plan.line, folder, typed };
  },
};
export default command;
