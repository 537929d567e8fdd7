// Retry All Failed: every failed delivery of one webhook (from its row) or of all listed webhooks.
import * as vscode from 'vscode';
import type { RepoRef, WebhookView } from '../../core/tree';
import { COMMANDS } from '../ids';
import { log } from '../log';
import { asArgs, isNode, pickWebhook } from '../pickers';
import type { CommandModule } from './context';

const PAGE = 100;

const command: CommandModule = {
  id: COMMANDS.retryAllFailed,
  async run(ctx, arg) {
    const targets: { repo: RepoRef; webhook: WebhookView }[] =
      (isNode(arg) && 'webhook' in arg) || asArgs(arg).webhookId ? [await pickWebhook(ctx, arg)] : (await ctx.webhooks.cachedWebhooks()).hooks;
    const client = await ctx.services.client();
    let retried = 0;
    let stillFailing = 0;
    const errors: string[] = [];
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Retrying failed deliveries', cancellable: true },
      async (progress, cancel) => {
        for (const { webhook } of targets) {
          const failed: string[] = [];
          for (let offset = 0; !cancel.isCancellationRequested; offset += PAGE) {
            const page = await client.listDeliveries(webhook.id, { limit: PAGE, offset });
            if (!page.offered) break;
            failed.push(...page.deliveries.filter((d) => !d.success).map((d) => d.id));
            if (offset + PAGE >= page.total || page.deliveries.length === 0) break;
          }
          for (const id of failed) {
            if (cancel.isCancellationRequested) break;
            try {
              const d = await client.retryDelivery(webhook.id, id);
              retried++;
              if (d && !d.success) stillFailing++;
            } catch (err) {
              errors.push(`${id}: ${(err as Error).message}`);
              log().error(`retry ${webhook.id}/${id}: ${(err as Error).stack ?? err}`);
            }
            progress.report({ message: `${retried} retried` });
          }
          ctx.webhooks.refreshDeliveries(webhook.id);
        }
      },
    );
    const msg = `Retried ${retried} failed deliveries; ${stillFailing} still failing${errors.length ? `; ${errors.length} could not be retried (see logs)` : ''}.`;
    if (errors.length) void vscode.window.showWarningMessage(msg, 'Show Logs').then((c) => c && log().show(true));
    else void vscode.window.showInformationMessage(msg);
    return { retried, stillFailing, errors };
  },
};
export default command;
