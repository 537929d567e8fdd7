// Delete Webhook, after a modal confirmation (`{ confirm: true }` skips it for automation).
import * as vscode from 'vscode';
import { webhookLabel } from '../../core/tree';
import { COMMANDS } from '../ids';
import { Cancelled } from '../errors';
import { asArgs, pickWebhook } from '../pickers';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.deleteWebhook,
  async run(ctx, arg) {
    const { repo, webhook } = await pickWebhook(ctx, arg, 'Delete Webhook');
    if (asArgs<{ confirm: boolean }>(arg).confirm !== true) {
      const ok = await vscode.window.showWarningMessage(
        `Delete the webhook to ${webhookLabel(webhook.url)}?`,
        { modal: true, detail: 'Its deliveries stop at once. This cannot be undone.' },
        'Delete',
      );
      if (ok !== 'Delete') throw new Cancelled();
    }
    const client = await ctx.services.client();
    await client.deleteWebhook(repo, webhook.id);
    ctx.webhooks.refresh();
    return { deleted: webhook.id };
  },
};
export default command;
