// Edit Events: the webhook's subscription, picked from the seven event types.
import * as vscode from 'vscode';
import { webhookLabel } from '../../core/tree';
import { COMMANDS } from '../ids';
import { UserError } from '../errors';
import { askEvents } from '../webhooks/webhookInputs';
import { asArgs, pickWebhook } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.editEvents,
  async run(ctx, arg) {
    const { repo, webhook } = await pickWebhook(ctx, arg, 'Edit Events: webhook');
    const events = asArgs<{ events: string[] }>(arg).events ?? ((await askEvents(webhook.events, 'Edit Events')) as string[]); // no Back button: never BACK
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const client = await ctx.services.client();
    const updated = await withProgress(`Updating the events of ${webhookLabel(webhook.url)}…`, () => client.updateWebhook(repo, webhook.id, { events }));
    ctx.webhooks.refresh();
    void vscode.window.showInformationMessage(`Events updated: ${events.join(', ')}`);
    return { webhook: updated };
  },
};
export default command;
