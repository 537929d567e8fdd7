// Retry Pending Forwards Now (Relay view): the relay attempts its pending forwards at once instead
// of at their scheduled time (the app is back), and the editor's own forwarding retries now.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.retryPending,
  async run(ctx, arg) {
    const { channel } = asArgs<{ channel: string }>(arg);
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Retrying pending forwards…' }, () =>
      ctx.services.relay.retryPending(channel ? { channel } : {}),
    );
    const parts = [result.queued === 1 ? '1 pending forward queued now' : `${result.queued} pending forwards queued now`];
    if (result.editor) parts.push('the delivery the editor is forwarding is tried again');
    void vscode.window.showInformationMessage(`${parts.join('; ')}.`);
    return result;
  },
};
export default command;
