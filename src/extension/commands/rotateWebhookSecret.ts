// Rotate Webhook Secret… (a webhook row): without downtime, in the order `service-hooks channels
// rotate` follows, which loses nothing: 1. the relay channel the webhook points at gets a new
// secret beside the old (PATCH /api/channels/<name>, admin token): both verify; 2. the app gets the
// new secret (Copy New Secret, and the forward set-up of the channel keeps it for Copy Signing
// Secret; an app that verifies signatures keeps both for the switch); 3. only
// then, on "Switch the Service", the webhook on the service gets the new secret; 4. the old one is
// dropped from the channel after the first delivery verified with the new one, or after a grace
// period (secretRotation.ts). On a channel other webhooks share, the old secret stays (they still
// sign with it). Automation: `{ webhookId, copy: true }` does 1–2 (the secret to the clipboard),
// `{ webhookId, switchService: true }` does 3–4.
import { newSecret } from '../../core/randomToken';
import { RelayApiError } from '../../../relay/client/apiError';
import * as vscode from 'vscode';
import { webhookLabel, webhooksByChannel, type RepoRef, type WebhookView } from '../../core/tree';
import { UserError } from '../errors';
import { COMMANDS } from '../ids';
import { log } from '../log';
import { asArgs, pickWebhook } from './pickers';
import { withProgress } from '../ui/progress';
import { SecretRotation, type RotationEnd } from '../webhooks/secretRotation';
import type { CommandContext, CommandModule } from './context';

const GRACE_MS = 10 * 60_000;
const rotations = new Map<string, SecretRotation>();

/** A rotation whose new secret the relay verifies and the app was offered; the service not switched yet (by webhook id). */
interface Waiting {
  repo: RepoRef;
  webhook: WebhookView;
  channel: string;
  shared: boolean;
  secret: string;
  afterSeq: number;
}
const waiting = new Map<string, Waiting>();

export interface RotateArgs {
  webhookId?: string;
  /** How long the old secret keeps verifying when no delivery shows the new one (default 10 minutes). */
  graceMs?: number;
  /** Steps 1–2: put the new secret on the clipboard at once (no notification to click). */
  copy?: boolean;
  /** Steps 3–4 of a rotation waiting for the app: switch the service, then retire the old secret. */
  switchService?: boolean;
}

const SWITCH = 'Switch the Service';
const COPY = 'Copy New Secret';

const command: CommandModule = {
  id: COMMANDS.rotateWebhookSecret,
  async run(ctx, arg) {
    const args = asArgs<RotateArgs>(arg);
    const { repo, webhook } = await pickWebhook(ctx, arg, 'Rotate Webhook Secret: webhook');
    if (args.switchService) return switchService(ctx, webhook, args.graceMs ?? GRACE_MS);
    const w = await addSecret(ctx, repo, webhook);
    waiting.set(webhook.id, w);
    const label = webhookLabel(webhook.url);
    const text = `Channel ${w.channel} verifies the old and the new secret now; the service still signs with the old one. Give your app the new secret (beside the old one), then switch the service to it.`;
    // Where the editor's forward set-up keeps the channel's secret, the new one goes (Copy Signing Secret gives it).
    const kept = await ctx.services.relay.replaceHeldSecret(webhook.url, w.secret);
    if (kept) log().info(`rotating the secret of ${label}: the forward set-up of channel ${w.channel} keeps the new secret`);
    if (args.copy) await vscode.env.clipboard.writeText(w.secret);
    else void offer(text, w.secret, webhook.id, args.graceMs);
    log().info(`rotating the secret of ${label}: channel ${w.channel} verifies both; waiting for the app before the service switches`);
    return { channel: w.channel, shared: w.shared, secretLength: w.secret.length, waitingFor: 'app' as const };
  },
};
export default command;

/** The notification of step 2: Copy New Secret (shown again after copying), and Switch the Service once the app has it. */
async function offer(text: string, secret: string, webhookId: string, graceMs: number | undefined): Promise<void> {
  const choice = await vscode.window.showInformationMessage(text, COPY, SWITCH);
  if (choice === COPY) {
    await vscode.env.clipboard.writeText(secret);
    return offer('New secret copied. Once your app verifies with it (and still with the old one), switch the service.', secret, webhookId, graceMs);
  }
  if (choice === SWITCH) await vscode.commands.executeCommand(COMMANDS.rotateWebhookSecret, { webhookId, switchService: true, graceMs });
}

/** Step 1: the channel the webhook points at verifies a new secret beside the old one. */
async function addSecret(ctx: CommandContext, repo: RepoRef, webhook: WebhookView): Promise<Waiting> {
  const relay = ctx.services.relay;
  const channel = relay.channelOf(webhook.url);
  const api = relay.connected ? relay.connection?.api : undefined;
  if (channel === undefined || !api) {
    throw new UserError(
      `${webhookLabel(webhook.url)} does not point at a channel of the relay in use, so its secret cannot be rotated without downtime here: change it on the service and in the receiver together.`,
    );
  }
  const { hooks } = await ctx.webhooks.cachedWebhooks();
  const shared =
    (webhooksByChannel(
      hooks.map((h) => h.webhook),
      relay.urls(),
    ).get(channel)?.length ?? 0) > 1;
  const secret = newSecret();
  const afterSeq = relay.live.lastSeq;
  await withProgress(`Adding a new secret to channel ${channel}…`, () => api.updateChannelSecrets(channel, { addSecrets: [secret] })).catch((err: unknown) => {
    if (!(err instanceof RelayApiError)) throw err;
    if (err.status === 403) throw new UserError(`Changing channel ${channel}'s secrets needs the relay's admin token; the token in use is a channel token.`);
    if (err.status === 409 || err.status === 404)
      throw new UserError(`Channel ${channel} is not one the relay's API manages (${err.message}): change its secret with the relay's --secret.`);
    throw err;
  });
  return { repo, webhook, channel, shared, secret, afterSeq };
}

/** Steps 3–4: the service signs with the new secret; the old one is retired once a delivery verifies with the new (or after the grace period). */
async function switchService(ctx: CommandContext, webhook: WebhookView, graceMs: number) {
  const w = waiting.get(webhook.id);
  if (!w) throw new UserError(`No rotation of ${webhookLabel(webhook.url)}'s secret waits for the service: run Rotate Webhook Secret… first.`);
  const relay = ctx.services.relay;
  const api = relay.connected ? relay.connection?.api : undefined;
  if (!api) throw new UserError('The relay is not connected: connect again, then switch the service (both secrets still verify).');
  const client = await ctx.services.client();
  await withProgress(`Giving ${webhookLabel(webhook.url)} the new secret…`, () => client.updateWebhook(w.repo, webhook.id, { secret: w.secret }));
  waiting.delete(webhook.id);
  rotations.get(w.channel)?.dispose();
  let dropped: Promise<RotationEnd> | undefined;
  if (!w.shared) {
    const rotation = new SecretRotation({ relay, api, channel: w.channel, secret: w.secret, afterSeq: w.afterSeq, graceMs, log: (l) => log().info(l) });
    rotations.set(w.channel, rotation);
    ctx.extension.subscriptions.push(rotation);
    dropped = rotation.done;
  }
  const then = w.shared
    ? `Channel ${w.channel} is shared with other webhooks: its old secret stays (they sign with it).`
    : `The old secret keeps verifying until a delivery signed with the new one arrives (at most ${Math.round(graceMs / 60_000)} min); then your app can drop it too.`;
  void vscode.window.showInformationMessage(`The service signs ${webhookLabel(webhook.url)}'s deliveries with the new secret. ${then}`);
  // `dropped` resolves once the old secret is dropped (the integration suite awaits it).
  return { channel: w.channel, shared: w.shared, switched: true, ...(dropped ? { dropped } : {}) };
}
