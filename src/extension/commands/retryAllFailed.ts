// Retry All Failed: every failed delivery of one webhook — from its row, `{ webhookId }`, or asked
// for from the palette — after a confirmation that counts them (`{ confirm: true }` skips it).
// A service that lists no deliveries (the real one shows them in its web UI only) cannot say which
// failed: the command then says so, and offers the ones that reached the relay and failed there,
// retried on the service by the delivery id the journal recorded — except those the app refused
// after the relay took them (the service counts them delivered: replayed from the relay) and those
// the relay rejected for a signature that does not verify now (the service's retry would resend it:
// counted apart, with Replay Re-signed offered on each row). The summary counts each kind apart.
import * as vscode from 'vscode';
import { retryAllSummary, webhookLabel, type DeliveryView, type RetryAllOutcome, type WebhookView } from '../../core/tree';
import type { ServiceClientLike } from '../contracts';
import { Cancelled, UserError } from '../errors';
import { serviceDeliveryId } from '../webhooks/journalIds';
import { COMMANDS } from '../ids';
import { log } from '../log';
import { asArgs, pickWebhook } from './pickers';
import { withProgress } from '../ui/progress';
import type { CommandContext, CommandModule } from './context';
import { routeOf } from './retryDelivery';

const PAGE = 100;

const command: CommandModule = {
  id: COMMANDS.retryAllFailed,
  async run(ctx, arg) {
    const { webhook } = await pickWebhook(ctx, arg, 'Retry All Failed: webhook');
    const client = await ctx.services.client();
    const label = webhookLabel(webhook.url);
    const listed = await withProgress(`Listing the failed deliveries of ${label}…`, () => failedIds(client, webhook), { cancellable: true });
    const fromRelay = listed === undefined;
    const failed: Planned = listed ? { service: listed, replay: [], resign: [] } : await failedAtRelay(ctx, webhook);
    const count = failed.service.length + failed.replay.length + failed.resign.length;
    if (count === 0) {
      void vscode.window.showInformationMessage(
        fromRelay
          ? `The service lists no failures (it shows deliveries in its web UI only), and no delivery of ${label} that reached the relay failed.`
          : `${label} has no failed deliveries.`,
      );
      return { retried: 0, stillFailing: 0, replayed: 0, replayRefused: 0, needResign: 0, errors: [], fromRelay };
    }
    if (asArgs<{ confirm: boolean }>(arg).confirm !== true) await confirm(failed, count, label, fromRelay);
    const retries = await retryEach(client, webhook, failed.service);
    const replays = await replayEach(ctx, failed.replay);
    const outcome: RetryAllOutcome = { ...retries, ...replays, needResign: failed.resign.length, errors: [...retries.errors, ...replays.errors] };
    ctx.webhooks.refreshDeliveries(webhook.id);
    const msg = retryAllSummary(outcome);
    if (outcome.errors.length || outcome.needResign) void vscode.window.showWarningMessage(msg, 'Show Logs').then((c) => c && log().show(true));
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

/** Failed deliveries by the retry each needs: the service's ids to retry there, relay seqs to replay, rows to replay re-signed. */
interface Planned {
  service: string[];
  replay: DeliveryView[];
  resign: DeliveryView[];
}

/** The webhook's deliveries that reached the relay and failed there (test sends left out), by the retry each needs. */
async function failedAtRelay(ctx: CommandContext, webhook: WebhookView): Promise<Planned> {
  ctx.webhooks.refreshDeliveries(webhook.id); // what failed by now, not what the view read last
  const st = await ctx.webhooks.deliveryState(webhook);
  if (!st.all)
    throw new UserError(
      st.note ?? 'The service shows failed deliveries in its web UI only, and this webhook does not point at a relay the editor is connected to.',
    );
  const out: Planned = { service: [], replay: [], resign: [] };
  for (const d of st.all.filter((x) => !x.success && !x.test)) {
    const route = await routeOf(ctx, d);
    if (route === 'service') out.service.push(await serviceDeliveryId(ctx.services, d));
    else out[route].push(d);
  }
  return out;
}

/** The modal question, counting the retries at the service and the replays from the relay apart. */
async function confirm(failed: Planned, count: number, label: string, fromRelay: boolean): Promise<void> {
  const go = `Retry ${count}`;
  const n = (k: number) => `${k} ${k === 1 ? 'delivery' : 'deliveries'}`;
  const question = fromRelay
    ? `The service lists no failures; ${n(count)} that reached the relay failed: retry ${count === 1 ? 'it' : 'them'}?`
    : `Retry ${count} failed deliver${count === 1 ? 'y' : 'ies'} of ${label}?`;
  const parts = [
    ...(failed.service.length ? [`${n(failed.service.length)} the service sends again`] : []),
    ...(failed.replay.length ? [`${n(failed.replay.length)} the app refused after the relay took them, replayed from the relay`] : []),
    ...(failed.resign.length ? [`${n(failed.resign.length)} the relay rejected for their signature, left for Replay Re-signed`] : []),
  ];
  const detail = `${parts.join('; ')}.${fromRelay ? " Failures that never reached the relay are shown in the service's web UI only." : ''}`;
  const ok = await vscode.window.showWarningMessage(question, { modal: true, detail }, go);
  if (ok !== go) throw new Cancelled();
}

/** Replays from the relay, one after the other: deliveries the app refused after the relay took them. */
async function replayEach(ctx: CommandContext, rows: DeliveryView[]): Promise<{ replayed: number; replayRefused: number; errors: string[] }> {
  let replayed = 0;
  let replayRefused = 0;
  const errors: string[] = [];
  for (const d of rows) {
    try {
      const { response } = await ctx.services.relay.replayDelivery(d.seq!);
      replayed++;
      if (!response.attempts.some((a) => a.ok)) replayRefused++;
    } catch (err) {
      errors.push(`#${d.seq}: ${(err as Error).message}`);
      log().error(`replay #${d.seq}: ${(err as Error).stack ?? err}`);
    }
  }
  if (rows.length) await ctx.services.relay.reload();
  return { replayed, replayRefused, errors };
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
