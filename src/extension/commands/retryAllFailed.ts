// Retry All Failed: every failed delivery of one webhook — from its row, `{ webhookId }`, or asked
// for from the palette — after a confirmation that counts them (`{ confirm: true }` skips it).
import * as vscode from 'vscode';
import { webhookLabel, type WebhookView } from '../../core/tree';
import type { ServiceClientLike } from '../contracts';
import { Cancelled } from '../errors';
import { COMMANDS } from '../ids';
import { log } from '../log';
import { asArgs, pickWebhook } from '../pickers';
import { withProgress } from '../progress';
import type { CommandModule } from './context';

const PAGE = 100;

const command: CommandModule = {
  id: COMMANDS.retryAllFailed,
  async run(ctx, arg) {
    const { webhook } = await pickWebhook(ctx, arg, 'Retry All Failed: webhook');
    const client = await ctx.services.client();
    const label = webhookLabel(webhook.url);
    const failed = await withProgress(`Listing the failed deliveries of ${label}…`, () => failedIds(client, webhook), { cancellable: true });
    if (failed.length === 0) {
      void vscode.window.showInformationMessage(`${label} has no failed deliveries.`);
      return { retried: 0, stillFailing: 0, errors: [] };
    }
    if (asArgs<{ confirm: boolean }>(arg).confirm !== true) {
      const go = `Retry ${failed.length}`;
      const ok = await vscode.window.showWarningMessage(`Retry ${failed.length} failed deliver${failed.length === 1 ? 'y' : 'ies'} of ${label}?`, { modal: true, detail: 'The service sends each one again now.' }, go);
      if (ok !== go) throw new Cancelled();
    }
    const outcome = await retryEach(client, webhook, failed);
    ctx.webhooks.refreshDeliveries(webhook.id);
    const { retried, stillFailing, errors } = outcome;
    const msg = `Retried ${retried} failed deliveries; ${stillFailing} still failing${errors.length ? `; ${errors.length} could not be retried (see logs)` : ''}.`;
    if (errors.length) void vscode.window.showWarningMessage(msg, 'Show Logs').then((c) => c && log().show(true));
    else void vscode.window.showInformationMessage(msg);
    return outcome;
  },
};
export default command;

async function failedIds(client: ServiceClientLike, webhook: WebhookView): Promise<string[]> {
  const failed: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.listDeliveries(webhook.id, { limit: PAGE, offset });
    if (!page.offered) break;
    failed.push(...page.deliveries.filter((d) => !d.success).map((d) => d.id));
    if (offset + PAGE >= page.total || page.deliveries.length === 0) break;
  }
  return failed;
}

/** One retry after the other under a progress notification; Cancel stops before the next one. */
async function retryEach(client: ServiceClientLike, webhook: WebhookView, ids: string[]): Promise<{ retried: number; stillFailing: number; errors: string[] }> {
  let retried = 0;
  let stillFailing = 0;
  const errors: string[] = [];
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Retrying failed deliveries', cancellable: true }, async (progress, cancel) => {
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
  });
  return { retried, stillFailing, errors };
}
