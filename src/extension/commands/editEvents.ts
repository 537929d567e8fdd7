// Edit Events: PATCH the subscription, current events pre-selected.
import * as vscode from 'vscode';
import { COMMANDS } from '../ids';
import { UserError } from '../errors';
import { asArgs, pickWebhook } from '../pickers';
import { askEvents } from './addWebhook';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.editEvents,
  async run(ctx, arg) {
    const { repo, webhook } = await pickWebhook(ctx, arg, 'Edit Events: webhook');
    const events = asArgs<{ events: string[] }>(arg).events ?? (await askEvents(webhook.events, 'Edit Events'));
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const client = await ctx.services.client();
    const updated = await client.updateWebhook(repo, webhook.id, { events });
    ctx.webhooks.refresh();
    void vscode.window.showInformationMessage(`Events updated: ${events.join(', ')}`);
    return { webhook: updated };
  },
};
export default command;
