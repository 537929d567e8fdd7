// Stop Relay: ends the relay started here (a relay started elsewhere is only disconnected).
// `{ confirm: true }` (the relay menu's Stop Relay…) asks before stopping a relay started here.
import * as vscode from 'vscode';
import { Cancelled } from '../errors';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.stopRelay,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    if (asArgs<{ confirm?: boolean }>(arg).confirm && relay.ownsProcess) {
      const choice = await vscode.window.showWarningMessage(
        `Stop the relay on port ${relay.port ?? '?'}? While it is stopped, deliveries to it are refused (the service retries them later).`,
        { modal: true },
        'Stop Relay',
      );
      if (choice !== 'Stop Relay') throw new Cancelled();
    }
    const result = await relay.stop();
    const text = {
      stopped: 'Relay stopped.',
      disconnected: 'Disconnected from the relay (it was started outside this window).',
      'not-running': 'The relay is not running.',
    }[result];
    void vscode.window.showInformationMessage(text);
    return { result };
  },
};
export default command;
