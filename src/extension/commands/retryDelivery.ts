// Retry Delivery (failed ones). From the palette: webhook, then delivery.
import * as vscode from 'vscode';
import { deliveryOutcome } from '../../core/tree';
import { COMMANDS } from '../ids';
import { pickDelivery } from '../pickers';
import { withProgress } from '../progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.retryDelivery,
  async run(ctx, arg) {
    const { webhook, deliveryId } = await pickDelivery(ctx, arg, { failedOnly: true, title: 'Retry Delivery' });
    const client = await ctx.services.client();
    const delivery = await withProgress(`Retrying delivery ${deliveryId}…`, () => client.retryDelivery(webhook.id, deliveryId));
    ctx.webhooks.refreshDeliveries(webhook.id);
    void vscode.window.showInformationMessage(`Retried delivery ${deliveryId}${delivery ? `: ${deliveryOutcome(delivery)}` : ''}`);
    return { delivery };
  },
};
export default command;
