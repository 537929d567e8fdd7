// Disconnect from Relay: closes the connection to the remote relay and forgets its token. When a
// forward set-up still points at that relay it warns first (its deliveries wait on the relay until
// the next Connect); `{ confirm: true }` (the relay menu's Disconnect…) always asks.
import * as vscode from 'vscode';
import { Cancelled } from '../errors';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.disconnectRelay,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    const args = asArgs<{ confirm?: boolean; force?: boolean }>(arg);
    const label = relay.remoteLabel;
    const sessions = relay.remoteLabel ? relay.sessions() : [];
    if (label && !args.force && (sessions.length > 0 || args.confirm)) {
      const setUps = sessions.map((f) => `${f.repo || `channel ${f.channel}`} → ${f.to}`).join(', ');
      const text =
        sessions.length > 0
          ? `${sessions.length === 1 ? 'A forward set-up still points' : `${sessions.length} forward set-ups still point`} at ${label} (${setUps}). After Disconnect its deliveries wait on the relay until you connect again (Stop Forwarding ends a set-up). Disconnect and forget the token?`
          : `Disconnect from ${label} and forget its token?`;
      const choice = await vscode.window.showWarningMessage(text, { modal: true }, 'Disconnect');
      if (choice !== 'Disconnect') throw new Cancelled();
    }
    const disconnected = await relay.disconnectRemote();
    void vscode.window.showInformationMessage(
      disconnected ? `Disconnected from ${label ?? 'the relay'}; its token is forgotten.` : 'Not connected to a relay.',
    );
    return { disconnected };
  },
};
export default command;
