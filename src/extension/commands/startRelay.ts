// Start Relay: runs the bundled CLI as a child process (secret and forward URL in a 0600 config
// file). A port in use or a locked data folder is reported as a failure, never "running".
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.startRelay,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Starting the relay…' }, () => relay.start());
    const text = result === 'started' ? `Relay running on port ${relay.port}.` : `The relay on port ${relay.port} is already running; the Relay view shows it.`;
    void vscode.window.showInformationMessage(text);
    // Started from Forward Webhooks to Local App…: go on there.
    if ((arg as { then?: string } | undefined)?.then === 'forward') void vscode.commands.executeCommand(COMMANDS.forwardToLocalApp);
    return { state: relay.state, port: relay.port, result };
  },
};
export default command;
