// Retry Delivery (failed ones). From the palette: webhook, then delivery. A row read from the relay
// journal (the service lists no deliveries) is retried on the service by the delivery id the
// journal recorded (serviceHooks.deliveryHeader): for a delivery the relay rejected (bad
// signature), once the secret is fixed the service's new attempt verifies.
import * as vscode from 'vscode';
import { deliveryOutcome } from '../../core/tree';
import { COMMANDS } from '../ids';
import { serviceDeliveryId } from '../journalIds';
import { pickDelivery } from '../pickers';
import { withProgress } from '../progress';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.retryDelivery,
  async run(ctx, arg) {
    const picked = await pickDelivery(ctx, arg, { failedOnly: true, title: 'Retry Delivery' });
    const { webhook } = picked;
    const deliveryId = picked.journaled ? await serviceDeliveryId(ctx.services, picked.journaled) : picked.deliveryId;
    const client = await ctx.services.client();
    const delivery = await withProgress(`Retrying delivery ${deliveryId}…`, () => client.retryDelivery(webhook.id, deliveryId));
    ctx.webhooks.refreshDeliveries(webhook.id);
    const where = picked.journaled ? ' (the service sends it again; the new attempt shows here when it reaches the relay)' : '';
    void vscode.window.showInformationMessage(`Retried delivery ${deliveryId}${delivery ? `: ${deliveryOutcome(delivery)}` : ''}${where}`);
    return { delivery, deliveryId };
  },
};
export default command;
