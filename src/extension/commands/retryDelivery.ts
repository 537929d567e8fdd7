// Retry Delivery (failed ones). From the palette: webhook, then delivery. Who failed it decides the
// retry (src/core/tree/retryRoute.ts): a delivery the service failed to deliver is retried at the
// service; one the relay took and the app refused counts as delivered at the service (its retry
// endpoint answers 409), so it is replayed from the relay; one the relay rejected for its
// signature is retried at the service only when that signature verifies at the relay now (the
// channel's secret was fixed): the service's retry resends the same signature, so after the
// webhook's secret is fixed it is rejected again, and Replay Re-signed from the relay is offered.
// A row read from the relay journal is retried on the service by the delivery id the journal
// recorded (serviceHooks.deliveryHeader).
import * as vscode from 'vscode';
import { deliveryOutcome, retryRoute, type DeliveryView, type RetryRoute } from '../../core/tree';
import { COMMANDS } from '../ids';
import { serviceDeliveryId } from '../webhooks/journalIds';
import { pickDelivery, type PickedDelivery } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandContext, CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.retryDelivery,
  async run(ctx, arg) {
    const picked = await pickDelivery(ctx, arg, { failedOnly: true, title: 'Retry Delivery' });
    const row = picked.journaled;
    const route = row ? await routeOf(ctx, row) : 'service';
    if (route === 'replay') return replayRefused(ctx, picked, row!);
    if (route === 'resign') return offerResign(row!);
    const { webhook } = picked;
    const deliveryId = row ? await serviceDeliveryId(ctx.services, row) : picked.deliveryId;
    const client = await ctx.services.client();
    const delivery = await withProgress(`Retrying delivery ${deliveryId}…`, () => client.retryDelivery(webhook.id, deliveryId));
    ctx.webhooks.refreshDeliveries(webhook.id);
    const where = row ? ' (the service sends it again; the new attempt shows here when it reaches the relay)' : '';
    void vscode.window.showInformationMessage(`Retried delivery ${deliveryId}${delivery ? `: ${deliveryOutcome(delivery)}` : ''}${where}`);
    return { route, delivery, deliveryId };
  },
};
export default command;

/** The retry a relay row needs; for a rejected one, whether its signature verifies at the relay now. */
export async function routeOf(ctx: CommandContext, row: DeliveryView): Promise<RetryRoute> {
  if (row.refusedBy !== 'signature' || row.seq === undefined) return retryRoute(row);
  const detail = await ctx.services.relay.getDelivery(row.seq);
  return retryRoute(row, detail.signatureMatchesNow === true);
}

/** The relay took it and the app refused it: replayed from the relay to the app. */
async function replayRefused(ctx: CommandContext, picked: PickedDelivery, row: DeliveryView) {
  const seq = row.seq!;
  const relay = ctx.services.relay;
  const { to, response } = await withProgress(`Replaying #${seq} from the relay…`, () => relay.replayDelivery(seq));
  const last = response.attempts[response.attempts.length - 1];
  const answer = last ? (last.status ? `HTTP ${last.status}` : (last.error ?? 'no answer')) : 'no attempt';
  const why = `The relay took delivery ${row.id} and the app ${row.retrying ? 'is being retried' : 'refused it'}${row.status ? ` (HTTP ${row.status})` : ''}; the service counts it delivered`;
  const text = `${why}, so it was replayed from the relay${(to ?? last?.target) ? ` to ${to ?? last?.target}` : ''}: ${answer}.`;
  if (last?.ok) void vscode.window.showInformationMessage(text);
  else void vscode.window.showWarningMessage(text);
  await relay.reload();
  ctx.webhooks.refreshDeliveries(picked.webhook.id);
  return { route: 'replay' as const, deliveryId: row.id, seq, to: to ?? last?.target, ...response };
}

/** Rejected for its signature, which a retry at the service would carry again: say so, offer the re-signed replay. */
function offerResign(row: DeliveryView) {
  const seq = row.seq!;
  const action = 'Replay Re-signed from Relay';
  void vscode.window
    .showWarningMessage(
      `The relay rejected delivery ${row.id} (#${seq}) for its signature. A retry at the service resends the same signature, so it is rejected again even after the webhook's secret is fixed. Replay it from the relay, signed with the channel's secret, instead.`,
      action,
    )
    .then((c) => c === action && vscode.commands.executeCommand(COMMANDS.replayDelivery, { seq, resign: true }));
  return { route: 'resign' as const, deliveryId: row.id, seq };
}
