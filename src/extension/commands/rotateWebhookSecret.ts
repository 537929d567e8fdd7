// Rotate Webhook Secret… (a webhook row): without downtime. 1. the relay channel the webhook
// points at gets a new secret beside the old (PATCH /api/channels/<name>, admin token); 2. the
// webhook on the service gets the new secret; 3. the old one is dropped from the channel after the
// first delivery verified with the new one, or after a grace period (secretRotation.ts). On a
// channel other webhooks share, the old secret stays (they still sign with it).
import { newSecret } from '../../core/randomToken';
import { RelayApiError } from '../../../relay/client/apiError';
import * as vscode from 'vscode';
import { webhookLabel, webhooksByChannel } from '../../core/tree';
import { UserError } from '../errors';
import { COMMANDS } from '../ids';
import { log } from '../log';
import { asArgs, pickWebhook } from '../pickers';
import { withProgress } from '../progress';
import { SecretRotation, type RotationEnd } from '../secretRotation';
import type { CommandModule } from './context';

const GRACE_MS = 10 * 60_000;
const rotations = new Map<string, SecretRotation>();

export interface RotateArgs {
  webhookId?: string;
  /** How long the old secret keeps verifying when no delivery shows the new one (default 10 minutes). */
  graceMs?: number;
}

const command: CommandModule = {
  id: COMMANDS.rotateWebhookSecret,
  async run(ctx, arg) {
    const args = asArgs<RotateArgs>(arg);
    const { repo, webhook } = await pickWebhook(ctx, arg, 'Rotate Webhook Secret: webhook');
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
    await withProgress(`Adding a new secret to channel ${channel}…`, () => api.updateChannelSecrets(channel, { addSecrets: [secret] })).catch(
      (err: unknown) => {
        if (!(err instanceof RelayApiError)) throw err;
        if (err.status === 403)
          throw new UserError(`Changing channel ${channel}'s secrets needs the relay's admin token; the token in use is a channel token.`);
        if (err.status === 409 || err.status === 404)
          throw new UserError(`Channel ${channel} is not one the relay's API manages (${err.message}): change its secret with the relay's --secret.`);
        throw err;
      },
    );
    const client = await ctx.services.client();
    await withProgress(`Giving ${webhookLabel(webhook.url)} the new secret…`, () => client.updateWebhook(repo, webhook.id, { secret }));
    rotations.get(channel)?.dispose();
    let dropped: Promise<RotationEnd> | undefined;
    if (!shared) {
      const rotation = new SecretRotation({ relay, api, channel, secret, afterSeq, graceMs: args.graceMs ?? GRACE_MS, log: (l) => log().info(l) });
      rotations.set(channel, rotation);
      ctx.extension.subscriptions.push(rotation);
      dropped = rotation.done;
    }
    const then = shared
      ? `Channel ${channel} is shared with other webhooks: its old secret stays (they sign with it).`
      : `The old secret keeps verifying until a delivery signed with the new one arrives (at most ${Math.round((args.graceMs ?? GRACE_MS) / 60_000)} min).`;
    void vscode.window
      .showInformationMessage(
        `New secret set on the service and on channel ${channel}. ${then} An app that verifies signatures itself needs the new secret.`,
        'Copy New Secret',
      )
      .then((c) => (c ? vscode.env.clipboard.writeText(secret) : undefined));
    // `dropped` resolves once the old secret is dropped (the integration suite awaits it).
    return { channel, shared, secretLength: secret.length, ...(dropped ? { dropped } : {}) };
  },
};
export default command;
