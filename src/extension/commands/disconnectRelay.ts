// Disconnect from Relay: closes the connection to the remote relay and forgets its token.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.disconnectRelay,
  async run(ctx) {
    const label = ctx.services.relay.remoteLabel;
    const disconnected = await ctx.services.relay.disconnectRemote();
    void vscode.window.showInformationMessage(disconnected ? `Disconnected from ${label ?? 'the relay'}; its token is forgotten.` : 'Not connected to a relay.');
    return { disconnected };
  },
};
export default command;
