// Palette fallbacks: when a command is not run from a tree row, ask with QuickPicks.
import * as vscode from 'vscode';
import {
  deliveryLabel,
  eventsDescription,
  parseRepoRef,
  repoKey,
  toSecond,
  webhookLabel,
  type DeliveryView,
  type RelayDeliveryView,
  type RelayTreeNode,
  type RepoRef,
  type WebhookTreeNode,
  type WebhookView,
} from '../../core/tree';
import { validateRepoText } from '../../core/input';
import type { DeliveryRecordLike } from '../contracts';
import { Cancelled, UserError } from '../errors';
import type { CommandContext } from './context';

export type AnyNode = WebhookTreeNode | RelayTreeNode;

export function isNode(x: unknown): x is AnyNode {
  return typeof x === 'object' && x !== null && typeof (x as { kind?: unknown }).kind === 'string';
}

/** Plain-object arguments the integration suite (and keybindings) may pass. */
export interface TargetArgs {
  repo?: string;
  webhookId?: string;
  deliveryId?: string;
  seq?: number;
}

export function asArgs<T extends object>(x: unknown): Partial<T> & TargetArgs {
  return (typeof x === 'object' && x !== null && !isNode(x) ? x : {}) as Partial<T> & TargetArgs;
}

export async function pickRepo(ctx: CommandContext, arg?: unknown): Promise<RepoRef> {
  if (isNode(arg) && 'repo' in arg) return arg.repo;
  const given = asArgs(arg).repo;
  if (given) {
    const ref = parseRepoRef(given);
    if (!ref) throw new UserError(`"${given}" is not owner/repo`);
    return ref;
  }
  const repos = await ctx.services.repositories();
  if (repos.length === 1) return repos[0]!;
  if (repos.length > 1) {
    const pick = await vscode.window.showQuickPick(
      repos.map((r) => ({ label: repoKey(r), repo: r })),
      { title: 'Repository' },
    );
    if (!pick) throw new Cancelled();
    return pick.repo;
  }
  const text = await vscode.window.showInputBox({ title: 'Repository (owner/repo)', validateInput: validateRepoText, ignoreFocusOut: true });
  if (!text) throw new Cancelled();
  const ref = validateRepoText(text) === undefined ? parseRepoRef(text) : undefined;
  if (!ref) throw new UserError(`"${text}" is not owner/repo`);
  return ref;
}

export async function pickWebhook(ctx: CommandContext, arg?: unknown, title = 'Webhook'): Promise<{ repo: RepoRef; webhook: WebhookView }> {
  if (isNode(arg) && 'webhook' in arg) return { repo: arg.repo, webhook: arg.webhook };
  const args = asArgs(arg);
  await ctx.services.client(); // signed out: fails here with the "Sign In" action
  let { hooks: all, errors } = await ctx.webhooks.cachedWebhooks();
  if (args.webhookId) {
    let found = all.find((h) => h.webhook.id === args.webhookId);
    if (!found && errors.length === 0) {
      // Not cached: the list may be stale. Refresh once.
      ctx.webhooks.refresh();
      ({ hooks: all, errors } = await ctx.webhooks.cachedWebhooks());
      found = all.find((h) => h.webhook.id === args.webhookId);
    }
    if (found) return found;
    if (errors.length > 0) throw errors[0];
    throw new UserError(`Webhook ${args.webhookId} is not in the listed repositories.`);
  }
  if (errors.length > 0 && all.length === 0) throw errors[0];
  if (all.length === 0) throw new UserError('No webhooks. Add one with "Add Webhook".');
  if (all.length === 1) return all[0]!;
  const pick = await vscode.window.showQuickPick(
    all.map((h) => ({
      label: webhookLabel(h.webhook.url),
      description: eventsDescription(h.webhook.events),
      detail: `${repoKey(h.repo)} · ${h.webhook.id}`,
      h,
    })),
    { title, matchOnDescription: true, matchOnDetail: true },
  );
  if (!pick) throw new Cancelled();
  return pick.h;
}

/** A service delivery: from a row, from {webhookId, deliveryId}, or picked (optionally failed ones only). */
export async function pickDelivery(ctx: CommandContext, arg: unknown, opts: { failedOnly?: boolean; title: string }): Promise<PickedDelivery> {
  // A row from the relay journal carries its seq: serviceDeliveryId gives the service's id for it.
  if (isNode(arg) && arg.kind === 'delivery')
    return { repo: arg.repo, webhook: arg.webhook, deliveryId: arg.delivery.id, ...(arg.delivery.seq !== undefined ? { journaled: arg.delivery } : {}) };
  const args = asArgs(arg);
  const { repo, webhook } = await pickWebhook(ctx, arg, `${opts.title}: webhook`);
  if (args.deliveryId) return { repo, webhook, deliveryId: args.deliveryId };
  const client = await ctx.services.client();
  const page = await client.listDeliveries(webhook.id, { limit: 100, offset: 0 });
  if (!page.offered) return pickJournaled(ctx, repo, webhook, opts);
  const list = page.deliveries.filter((d) => !opts.failedOnly || !d.success);
  if (list.length === 0) throw new UserError(opts.failedOnly ? 'This webhook has no failed deliveries.' : 'This webhook has no deliveries.');
  const pick = await vscode.window.showQuickPick(
    list.map((d) => ({ label: deliveryLabel(d), description: d.event, detail: d.id, d })),
    { title: `${opts.title}: delivery`, matchOnDetail: true },
  );
  if (!pick) throw new Cancelled();
  return { repo, webhook, deliveryId: pick.d.id, delivery: pick.d };
}

/** The service lists no deliveries: pick among the webhook's rows from the relay journal (test sends left out). */
async function pickJournaled(ctx: CommandContext, repo: RepoRef, webhook: WebhookView, opts: { failedOnly?: boolean; title: string }): Promise<PickedDelivery> {
  const st = await ctx.webhooks.deliveryState(webhook);
  if (!st.all)
    throw new UserError(st.note ?? 'The service shows deliveries in its web UI only, and this webhook does not point at a relay the editor is connected to.');
  const list = st.all.filter((d) => !opts.failedOnly || (!d.test && !d.success));
  if (list.length === 0)
    throw new UserError(
      opts.failedOnly ? `No delivery of this webhook that reached the relay (channel ${st.channel}) failed.` : 'No delivery of this webhook reached the relay.',
    );
  const pick = await vscode.window.showQuickPick(
    list.map((d) => ({ label: deliveryLabel(d), description: `${d.event} · relay #${d.seq}`, detail: d.id, d })),
    { title: `${opts.title}: delivery (from the relay journal)`, matchOnDetail: true },
  );
  if (!pick) throw new Cancelled();
  return { repo, webhook, deliveryId: pick.d.id, journaled: pick.d };
}

export interface PickedDelivery {
  repo: RepoRef;
  webhook: WebhookView;
  /** The row's id: for a journaled row, see serviceDeliveryId (src/extension/webhooks/journalIds.ts). */
  deliveryId: string;
  delivery?: DeliveryRecordLike;
  /** Set for a row read from the relay journal (the service lists no deliveries). */
  journaled?: DeliveryView;
}

/**
 * The relay journal seq of a Webhooks-tree delivery row read from the relay journal (a service
 * without the deliveries endpoint): such a row is the relay's, never the service's.
 */
export function journalSeq(arg: unknown): number | undefined {
  return isNode(arg) && arg.kind === 'delivery' && arg.source === 'relay' && arg.delivery.seq !== undefined ? arg.delivery.seq : undefined;
}

/** Whether a command's argument names a relay journal entry (a relay row, a journal-sourced row, `{ seq }`). */
export function isRelayTarget(arg: unknown): boolean {
  return (isNode(arg) && arg.kind === 'relayDelivery') || journalSeq(arg) !== undefined || typeof asArgs(arg).seq === 'number';
}

/** A relay journal entry: from a relay row, from {seq}, from a service delivery row (matched by delivery id), or picked. */
export async function pickRelayDelivery(ctx: CommandContext, arg: unknown, title: string): Promise<RelayDeliveryView> {
  const relay = ctx.services.relay;
  if (!relay.connected) await relay.probe({ force: true });
  if (!relay.connected) throw new UserError('No relay is connected. Run "Start Relay" or "Connect to Relay…".');
  if (isNode(arg) && arg.kind === 'relayDelivery') return arg.delivery;
  const args = asArgs(arg);
  if (typeof args.seq === 'number') return relay.getDelivery(args.seq);
  const journaled = journalSeq(arg);
  if (journaled !== undefined) return relay.getDelivery(journaled);
  const deliveryId = isNode(arg) && arg.kind === 'delivery' ? arg.delivery.id : args.deliveryId;
  const { deliveries } = await relay.listDeliveries({ limit: 1000 });
  if (deliveryId) {
    const match = deliveries.find((d) => d.deliveryId === deliveryId);
    if (!match) throw new UserError(`Delivery ${deliveryId} did not reach the relay, so it cannot be replayed from the journal.`);
    return match;
  }
  if (deliveries.length === 0) throw new UserError('The relay journal is empty.');
  const pick = await vscode.window.showQuickPick(
    deliveries
      .sort((a, b) => b.seq - a.seq)
      .map((d) => ({ label: `#${d.seq} ${d.event ?? 'unknown'}`, description: `${d.channel} · ${d.verification}`, detail: toSecond(d.receivedAt), d })),
    { title },
  );
  if (!pick) throw new Cancelled();
  return pick.d;
}
