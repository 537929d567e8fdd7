// Stop Forwarding: ends a "Forward Webhooks to Local App" set-up, and offers to delete the service
// webhook and the relay channel it created.
import * as vscode from 'vscode';
import { parseRepoRef } from '../../core/tree';
import { Cancelled, UserError } from '../errors';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import type { CommandModule } from './context';

export interface StopForwardingArgs {
  channel?: string;
  /** true: delete the webhook and the channel without asking; false: keep them. */
  deleteBoth?: boolean;
}

const command: CommandModule = {
  id: COMMANDS.stopForwarding,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    const row = arg as { kind?: string; session?: { channel: string } } | undefined;
    const args = asArgs<StopForwardingArgs>(arg);
    const sessions = relay.sessions();
    const channel = row?.kind === 'relayForwarding' ? row.session!.channel : (args.channel ?? (await pick(sessions)));
    const session = sessions.find((f) => f.channel === channel);
    if (!session) throw new UserError(`No forwarding set-up for channel ${channel}.`);
    const made = session.webhookId !== ''; // a channel-token set-up made no webhook and no channel
    const deleteBoth =
      made &&
      (args.deleteBoth ??
        (await vscode.window.showInformationMessage(
          `Stop forwarding ${session.repo} to ${session.to}. Also delete the webhook on the service and the channel on the relay?`,
          { modal: true },
          'Delete Both',
          'Keep Them',
        )) === 'Delete Both');
    await relay.endSession(session.channel);
    if (deleteBoth) {
      const client = await ctx.services.client();
      const repo = parseRepoRef(session.repo);
      if (repo) await client.deleteWebhook(repo, session.webhookId);
      await relay.relayApi().api.deleteChannel(session.channel);
      ctx.webhooks.refresh();
    }
    void vscode.window.showInformationMessage(
      `Stopped forwarding ${session.repo || `channel ${session.channel}`}${deleteBoth ? '; the webhook and the channel are deleted' : ''}.`,
    );
    return { channel: session.channel, deleted: deleteBoth };
  },
};
export default command;

async function pick(sessions: { channel: string; repo: string; to: string }[]): Promise<string> {
  if (sessions.length === 0) throw new UserError('Nothing is being forwarded. Start with "Forward Webhooks to Local App…".');
  if (sessions.length === 1) return sessions[0]!.channel;
  const choice = await vscode.window.showQuickPick(
    sessions.map((f) => ({ label: `${f.repo} → ${f.to}`, description: `channel ${f.channel}`, channel: f.channel })),
    { title: 'Stop Forwarding' },
  );
  if (!choice) throw new Cancelled();
  return choice.channel;
}
