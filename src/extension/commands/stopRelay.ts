// Stop Relay: ends the relay started here (a relay started elsewhere is only disconnected).
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.stopRelay,
  async run(ctx) {
    const result = await ctx.services.relay.stop();
    const text = { stopped: 'Relay stopped.', disconnected: 'Disconnected from the relay (it was started outside this window).', 'not-running': 'The relay is not running.' }[result];
    void vscode.window.showInformationMessage(text);
    return { result };
  },
};
export default command;
