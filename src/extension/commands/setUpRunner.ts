// Set Up Self-Hosted Runner (spec §5): a terminal with install, configure and run commands.
// The runner token is asked with a password input and passed through the terminal's environment,
// so it is never written to settings nor echoed on the command line.
import * as vscode from 'vscode';
import { runnerCommands } from '../../core/runner';
import { settings } from '../config';
import { COMMANDS } from '../ids';
import { Cancelled } from '../errors';
import { asArgs } from '../pickers';
import type { CommandModule } from './context';

export const RUNNER_TOKEN_ENV = 'SERVICE_RUNNER_TOKEN';

const command: CommandModule = {
  id: COMMANDS.setUpRunner,
  async run(_ctx, arg) {
    const args = asArgs<{ token: string; execute: boolean }>(arg);
    const token = args.token ?? (await vscode.window.showInputBox({ title: 'Runner registration token', password: true, ignoreFocusOut: true }));
    if (!token) throw new Cancelled();
    const lines = runnerCommands(settings().baseUrl, RUNNER_TOKEN_ENV);
    const terminal = vscode.window.createTerminal({ name: 'Service Runner', env: { [RUNNER_TOKEN_ENV]: token } });
    terminal.show();
    // Commands are typed but not run when `execute: false` (automation); by default they run in order.
    terminal.sendText(lines.join(' && '), args.execute !== false);
    return { terminal: terminal.name, commands: lines };
  },
};
export default command;
