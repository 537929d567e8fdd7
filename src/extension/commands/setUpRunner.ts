// Set Up Self-Hosted Runner (spec §5): a terminal with the install, configure and run commands
// typed but not run: the user reads them and presses Enter. The runner token is asked with a
// password input and passed through the terminal's environment, so it is never written to
// settings nor shown on the command line.
import * as vscode from 'vscode';
import { runnerCommands } from '../../core/runner';
import { settings } from '../config';
import { COMMANDS, OPEN_SETTINGS_ACTION } from '../ids';
import { Cancelled, UserError } from '../errors';
import { asArgs } from '../pickers';
import type { CommandModule } from './context';

export const RUNNER_TOKEN_ENV = 'SERVICE_RUNNER_TOKEN';

const command: CommandModule = {
  id: COMMANDS.setUpRunner,
  async run(_ctx, arg) {
    const plan = runnerCommands(settings().baseUrl, RUNNER_TOKEN_ENV);
    if (!plan.ok) throw new UserError(plan.problem, [OPEN_SETTINGS_ACTION]);
    const args = asArgs<{ token: string }>(arg);
    const token =
      args.token ??
      (await vscode.window.showInputBox({
        title: 'Runner registration token',
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (!v.trim() ? 'Enter the token' : /[\u0000-\u001f\u007f]/.test(v) ? 'The token must not contain control characters' : undefined),
      }));
    if (!token) throw new Cancelled();
    if (/[\u0000-\u001f\u007f]/.test(token)) throw new UserError('The runner token must not contain control characters.');
    const terminal = vscode.window.createTerminal({ name: 'Service Runner', env: { [RUNNER_TOKEN_ENV]: token.trim() }, isTransient: true });
    terminal.show();
    // Typed, not run: the user reads the line and presses Enter.
    terminal.sendText(plan.line, false);
    return { terminal: terminal.name, commands: plan.steps, line: plan.line };
  },
};
export default command;
