// Start Relay: runs the bundled CLI as a child process with the forward URL from settings.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.startRelay,
  async run(ctx) {
    const relay = ctx.services.relay;
    await relay.start();
    void vscode.window.showInformationMessage(`Relay running on port ${relay.port}.`);
    return { state: relay.state, port: relay.port };
  },
};
export default command;
