// Ping Webhook: the service sends a test delivery.
import * as vscode from 'vscode';
import { deliveryOutcome, webhookLabel } from '../../core/tree';
import { COMMANDS } from '../ids';
import { pickWebhook } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.pingWebhook,
  async run(ctx, arg) {
    const { webhook } = await pickWebhook(ctx, arg, 'Ping Webhook');
    const client = await ctx.services.client();
    const delivery = await withProgress(`Pinging ${webhookLabel(webhook.url)}…`, () => client.ping(webhook.id));
    ctx.webhooks.refreshDeliveries(webhook.id);
    void vscode.window.showInformationMessage(
      delivery ? `Ping sent to ${webhookLabel(webhook.url)}: ${deliveryOutcome(delivery)}` : `Ping sent to ${webhookLabel(webhook.url)}.`,
    );
    return { delivery };
  },
};
export default command;
