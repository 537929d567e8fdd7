// Send Sample Event… (like `stripe trigger`): pick a webhook or a relay channel and one of the
// seven event types; the editor posts a typed sample (src/core/events) to that URL as the service
// would, signed with the secret the editor holds (the local relay's), else with one asked for and
// never stored; marked as a test send (X-Service-Delivery: test-<uuid>, src/core/testSend.ts).
// Also on the webhook row. Automation: { webhookId | url, event, secret? } ('' sends unsigned).
// It posts with the trust of the connection to the relay (NODE_EXTRA_CA_CERTS's CA, which the
// extension host's own fetch leaves out: ../relay/servicePost.ts), and a failure says its cause
// (an untrusted certificate: how to trust its CA) instead of "fetch failed".
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { EVENT_TYPES, isEventType, sampleRequest, type EventType } from '../../core/events';
import { sampleTargetItems, webhookLabel, type SampleTarget } from '../../core/tree';
import { COMMANDS } from '../ids';
import { Cancelled, UserError } from '../errors';
import { log } from '../log';
import { asArgs, isNode, pickWebhook } from './pickers';
import { withProgress } from '../ui/progress';
import { statusOf } from '../relay/servicePost';
import type { CommandContext, CommandModule } from './context';

const TITLE = 'Send Sample Event';
export const SAMPLE_TIMEOUT_MS = 10_000;

type Target = SampleTarget;

/** The webhook (row, `webhookId`), the `url`, or a pick of the webhooks and the relays' channel URLs. */
async function pickTarget(ctx: CommandContext, arg: unknown): Promise<Target> {
  const args = asArgs<{ url: string }>(arg);
  if ((isNode(arg) && 'webhook' in arg) || args.webhookId) {
    const { repo, webhook } = await pickWebhook(ctx, arg, TITLE);
    return { url: webhook.url, label: webhookLabel(webhook.url), repo, events: webhook.events };
  }
  if (args.url) return { url: args.url, label: args.url };
  const { hooks } = await ctx.webhooks
    .cachedWebhooks()
    .catch(() => ({ hooks: [] as Awaited<ReturnType<CommandContext['webhooks']['cachedWebhooks']>>['hooks'] }));
  const items = sampleTargetItems(hooks, ctx.services.relay.webhookUrlChoices());
  if (items.length === 0) throw new UserError('No webhook or relay channel to send to. Sign in, or start or connect to a relay.');
  const pick = await vscode.window.showQuickPick(items, { title: `${TITLE} (1/2): to`, placeHolder: 'A webhook, or a relay channel', ignoreFocusOut: true });
  if (!pick) throw new Cancelled();
  return pick.target;
}

async function pickEvent(target: Target, given: unknown): Promise<EventType> {
  if (given !== undefined) {
    if (!isEventType(given)) throw new UserError(`Unknown event type ${JSON.stringify(given)}; one of ${EVENT_TYPES.join(', ')}.`);
    return given;
  }
  const subscribed = target.events ?? [];
  const ordered = [...EVENT_TYPES].sort((a, b) => Number(subscribed.includes(b)) - Number(subscribed.includes(a)));
  const pick = await vscode.window.showQuickPick(
    ordered.map((e) => ({
      label: e,
      description: subscribed.includes(e) ? 'subscribed' : target.events ? 'not subscribed: the service would not send it' : undefined,
    })),
    { title: `${TITLE} (2/2): event to ${target.label}`, ignoreFocusOut: true },
  );
  if (!pick) throw new Cancelled();
  return pick.label as EventType;
}

/** The secret the editor holds for the URL (the local relay's), else one asked for, never stored; '' sends unsigned. */
async function secretFor(ctx: CommandContext, target: Target, given: unknown): Promise<string> {
  if (typeof given === 'string') return given;
  // A set-up channel's own secret, or the local relay's when the editor started that relay (an attached one has its own).
  const held = await ctx.services.relay.heldSecretFor(target.url);
  if (held) return held;
  const typed = await vscode.window.showInputBox({
    title: `${TITLE}: the webhook secret to sign with (not stored)`,
    prompt: `The secret ${target.label} verifies with; leave empty to send unsigned`,
    password: true,
    ignoreFocusOut: true,
  });
  if (typed === undefined) throw new Cancelled();
  return typed;
}

const command: CommandModule = {
  id: COMMANDS.sendSampleEvent,
  async run(ctx, arg) {
    const args = asArgs<{ event: string; secret: string }>(arg);
    const target = await pickTarget(ctx, arg);
    const event = await pickEvent(target, args.event);
    const secret = await secretFor(ctx, target, args.secret);
    const repo = target.repo ?? (await ctx.services.repositories())[0];
    const req = sampleRequest(event, randomUUID(), secret, repo ? { owner: repo.owner, repo: repo.repo } : {});
    const status = await withProgress(`Sending a sample ${event} to ${target.label}…`, () =>
      statusOf(target.url, target.label, req.headers, req.body, SAMPLE_TIMEOUT_MS),
    );
    const signed = secret !== '';
    log().info(`sample ${event} (${req.deliveryId}, ${signed ? 'signed' : 'unsigned'}) to ${target.url}: ${status}`);
    const text = `Sent a sample ${event} to ${target.label}${signed ? '' : ' (unsigned)'}: it answered ${status}. Marked as a test send (${req.deliveryId}).`;
    if (status >= 200 && status < 300) void vscode.window.showInformationMessage(text);
    else void vscode.window.showWarningMessage(text);
    return { url: target.url, event, deliveryId: req.deliveryId, status, signed };
  },
};
export default command;
