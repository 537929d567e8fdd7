// A click on the relay's status bar item: a menu (Show Relay View, Copy Signing Secret,
// Disconnect…, Stop Relay…, …), so that one click never disconnects, forgets a token or stops a relay.
import * as vscode from 'vscode';
import { relayMenu } from '../../core/tree';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.relayMenu,
  async run(ctx) {
    const relay = ctx.services.relay;
    const items = relayMenu({
      state: relay.state,
      remote: relay.remoteLabel,
      port: relay.port,
      ownsProcess: relay.ownsProcess,
      hasSecret: (await relay.signingSecrets()).length > 0,
    });
    const picked = await vscode.window.showQuickPick(items, {
      title: `Relay${relay.remoteLabel ? `: ${relay.remoteLabel}` : relay.port ? ` on port ${relay.port}` : ''}`,
      placeHolder: relay.detail,
    });
    if (!picked) return { picked: undefined };
    await vscode.commands.executeCommand(picked.command, ...(picked.args ? [picked.args] : []));
    return { picked: picked.command };
  },
};
export default command;
