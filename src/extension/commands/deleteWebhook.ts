// Delete Webhook: one row, or every selected webhook row, after a modal confirmation that counts
// what goes (`{ confirm: true }` skips it for automation).
import * as vscode from 'vscode';
import { webhookLabel, type RepoRef, type WebhookView } from '../../core/tree';
import { COMMANDS } from '../ids';
import { Cancelled } from '../errors';
import { asArgs, isNode, pickWebhook } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandContext, CommandModule } from './context';

type Target = { repo: RepoRef; webhook: WebhookView };

const command: CommandModule = {
  id: COMMANDS.deleteWebhook,
  async run(ctx, arg, selection) {
    const targets = await targetsOf(ctx, arg, selection);
    if (asArgs<{ confirm: boolean }>(arg).confirm !== true) await confirm(ctx, targets);
    const client = await ctx.services.client();
    const deleted: string[] = [];
    try {
      await withProgress(
        targets.length === 1 ? `Deleting the webhook to ${webhookLabel(targets[0]!.webhook.url)}…` : `Deleting ${targets.length} webhooks…`,
        async () => {
          for (const t of targets) {
            await client.deleteWebhook(t.repo, t.webhook.id);
            deleted.push(t.webhook.id);
          }
        },
      );
    } finally {
      ctx.webhooks.refresh();
    }
    void vscode.window.showInformationMessage(deleted.length === 1 ? 'Webhook deleted.' : `${deleted.length} webhooks deleted.`);
    return { deleted: deleted.length === 1 ? deleted[0] : deleted };
  },
};
export default command;

/** The clicked row, or every selected webhook row when the click is part of a selection. */
async function targetsOf(ctx: CommandContext, arg: unknown, selection: unknown): Promise<Target[]> {
  if (Array.isArray(selection) && isNode(arg)) {
    const rows = selection.filter((n): n is Target & { kind: 'webhook' } => isNode(n) && n.kind === 'webhook');
    if (rows.length > 1) return rows.map((n) => ({ repo: n.repo, webhook: n.webhook }));
  }
  return [await pickWebhook(ctx, arg, 'Delete Webhook')];
}

async function confirm(ctx: CommandContext, targets: Target[]): Promise<void> {
  let deliveries = 0;
  for (const t of targets) deliveries += (await ctx.webhooks.deliveryState(t.webhook).catch(() => undefined))?.counts.total ?? 0;
  const what = targets.length === 1 ? `the webhook to ${webhookLabel(targets[0]!.webhook.url)}` : `${targets.length} webhooks`;
  const detail = [
    ...(targets.length > 1 ? targets.map((t) => `• ${webhookLabel(t.webhook.url)} (${t.webhook.id})`) : []),
    `${deliveries} recorded deliver${deliveries === 1 ? 'y goes' : 'ies go'} with ${targets.length === 1 ? 'it' : 'them'}, and deliveries stop at once. This cannot be undone.`,
  ].join('\n');
  const label = targets.length === 1 ? 'Delete' : `Delete ${targets.length} Webhooks`;
  const ok = await vscode.window.showWarningMessage(`Delete ${what}?`, { modal: true, detail }, label);
  if (ok !== label) throw new Cancelled();
}
