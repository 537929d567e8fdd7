// Retry All Failed: every failed delivery of one webhook — from its row, `{ webhookId }`, or asked
// for from the palette — after a confirmation that counts them (`{ confirm: true }` skips it).
// A service that lists no deliveries (the real one shows them in its web UI only) cannot say which
// failed: the command then says so, and offers the ones that reached the relay and failed there,
// retried on the service by the delivery id the journal recorded.
import * as vscode from 'vscode';
import { webhookLabel, type WebhookView } from '../../core/tree';
import type { ServiceClientLike } from '../contracts';
import { Cancelled, UserError } from '../errors';
import { serviceDeliveryId } from '../journalIds';
import { COMMANDS } from '../ids';
import { log } from '../log';
import { asArgs, pickWebhook } from '../pickers';
import { withProgress } from '../progress';
import type { CommandContext, CommandModule } from './context';

const PAGE = 100;

const command: CommandModule = {
  id: COMMANDS.retryAllFailed,
  async run(ctx, arg) {
    const { webhook } = await pickWebhook(ctx, arg, 'Retry All Failed: webhook');
    const client = await ctx.services.client();
    const label = webhookLabel(webhook.url);
    const listed = await withProgress(`Listing the failed deliveries of ${label}…`, () => failedIds(client, webhook), { cancellable: true });
    const fromRelay = listed === undefined;
    const failed = listed ?? (await failedAtRelay(ctx, webhook));
    if (failed.length === 0) {
      void vscode.window.showInformationMessage(
        fromRelay
          ? `The service lists no failures (it shows deliveries in its web UI only), and no delivery of ${label} that reached the relay failed.`
          : `${label} has no failed deliveries.`,
      );
      return { retried: 0, stillFailing: 0, errors: [], fromRelay };
    }
    if (asArgs<{ confirm: boolean }>(arg).confirm !== true) {
      const go = `Retry ${failed.length}`;
      const n = `${failed.length} ${failed.length === 1 ? 'delivery' : 'deliveries'}`;
      const question = fromRelay
        ? `The service lists no failures; ${n} that reached the relay failed: retry ${failed.length === 1 ? 'it' : 'them'}?`
        : `Retry ${failed.length} failed deliver${failed.length === 1 ? 'y' : 'ies'} of ${label}?`;
      const detail = fromRelay ? "Failures that never reached the relay are shown in the service's web UI only." : 'The service sends each one again now.';
      const ok = await vscode.window.showWarningMessage(question, { modal: true, detail }, go);
      if (ok !== go) throw new Cancelled();
    }
    const outcome = await retryEach(client, webhook, failed);
    ctx.webhooks.refreshDeliveries(webhook.id);
    const { retried, stillFailing, errors } = outcome;
    const msg = `Retried ${retried} failed deliveries; ${stillFailing} still failing${errors.length ? `; ${errors.length} could not be retried (see logs)` : ''}.`;
    if (errors.length) void vscode.window.showWarningMessage(msg, 'Show Logs').then((c) => c && log().show(true));
    else void vscode.window.showInformationMessage(msg);
    return { ...outcome, fromRelay };
  },
};
export default command;

/** The failed deliveries the service lists; undefined when it lists none at all (no deliveries endpoint). */
async function failedIds(client: ServiceClientLike, webhook: WebhookView): Promise<string[] | undefined> {
  const failed: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.listDeliveries(webhook.id, { limit: PAGE, offset });
    if (!page.offered) return undefined;
    failed.push(...page.deliveries.filter((d) => !d.success).map((d) => d.id));
    if (offset + PAGE >= page.total || page.deliveries.length === 0) break;
  }
  return failed;
}

/** The service's ids of this webhook's deliveries that reached the relay and failed there (test sends left out). */
async function failedAtRelay(ctx: CommandContext, webhook: WebhookView): Promise<string[]> {
  const st = await ctx.webhooks.deliveryState(webhook);
  if (!st.all)
    throw new UserError(
      st.note ?? 'The service shows failed deliveries in its web UI only, and this webhook does not point at a relay the editor is connected to.',
    );
  const ids: string[] = [];
  for (const d of st.all.filter((x) => !x.success && !x.test)) ids.push(await serviceDeliveryId(ctx.services, d));
  return ids;
}

/** One retry after the other under a progress notification; Cancel stops before the next one. */
async function retryEach(client: ServiceClientLike, webhook: WebhookView, ids: string[]): Promise<{ retried: number; stillFailing: number; errors: string[] }> {
  let retried = 0;
  let stillFailing = 0;
  const errors: string[] = [];
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Retrying failed deliveries', cancellable: true },
    async (progress, cancel) => {
      for (const id of ids) {
        if (cancel.isCancellationRequested) break;
        try {
          const d = await client.retryDelivery(webhook.id, id);
          retried++;
          if (d && !d.success) stillFailing++;
        } catch (err) {
          errors.push(`${id}: ${(err as Error).message}`);
          log().error(`retry ${webhook.id}/${id}: ${(err as Error).stack ?? err}`);
        }
        progress.report({ message: `${retried} of ${ids.length} retried`, increment: 100 / ids.length });
      }
    },
  );
  return { retried, stillFailing, errors };
}
