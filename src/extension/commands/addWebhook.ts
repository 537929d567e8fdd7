// Add Webhook: URL (relay URLs offered) → events (pick many of the seven) → secret
// (generate/enter/none) → json, with Back between the steps and URL problems shown as you type.
// A secret is checked against the relay channel the URL names before anything is created: a
// generated one is not offered where it could not verify (a channel token's channel), and a typed
// one is sent as a signed test ping through the ingress; a 401 asks for the secret again (the URL
// and events kept), or, given as an argument, is an error. A reconnect of the relay at that
// moment is waited out first (relay/relayReady.ts), so it neither hides the channel nor re-asks.
import { randomBytes } from 'node:crypto';
import { newSecret } from '../../core/randomToken';
import { RelayApiError } from '../../../relay/client/apiError';
import * as vscode from 'vscode';
import { validateWebhookUrl } from '../../core/input';
import { SUBSCRIBABLE_EVENTS, channelNameFor, repoKey } from '../../core/tree';
import { COMMANDS } from '../ids';
import { UserError } from '../errors';
import { asArgs, pickRepo } from '../pickers';
import { withProgress } from '../progress';
import { relayReady } from '../relay/relayReady';
import { secretMismatch } from '../relay/servicePost';
import { BACK, askEvents, askSecret, askUrl, type UrlChoice } from '../webhookInputs';
import type { CommandContext, CommandModule } from './context';

export interface AddWebhookArgs {
  repo?: string;
  url?: string;
  events?: string[];
  /** 'generate' | 'none' | the secret itself */
  secret?: string;
}

const command: CommandModule = {
  id: COMMANDS.addWebhook,
  async run(ctx, arg) {
    const args = asArgs<AddWebhookArgs>(arg);
    const repo = await pickRepo(ctx, arg);
    // A reconnect at this moment is waited out: its channels are the URLs offered, and the secret is checked at them.
    await relayReady(ctx.services.relay);
    // Each webhook gets a channel of its own by default, so the rows and counts under it are its own
    // (on a remote relay only with a token that may create channels: a channel token offers its channel).
    const own = (await mayCreateChannels(ctx)) ? channelNameFor(repoKey(repo), randomBytes(4).toString('hex')) : undefined;
    const choices = ctx.services.relay.webhookUrlChoices(own);
    const ownChannel = (u: string) => choices.find((c) => c.url === u.trim() && c.newChannel)?.newChannel;
    const cannotGenerate = async (u: string) => (ownChannel(u) ? undefined : ctx.services.relay.generateProblem(u.trim()));
    const asked = await askAll(args, choices, cannotGenerate);
    const { url, events } = asked;
    const urlProblem = validateWebhookUrl(url);
    if (urlProblem) throw new UserError(urlProblem);
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const unknown = events.filter((e) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(e));
    if (unknown.length) throw new UserError(`Unknown event type(s): ${unknown.join(', ')}`);
    // A generated secret must verify where the webhook delivers: a relay channel's own secret, or one added to the relay (relayManager).
    // A channel of the webhook's own on the remote relay is created below with the generated secret.
    const newChannel = ownChannel(url);
    const secretChoice = newChannel ? asked.secretChoice : await checkedSecret(ctx, url.trim(), asked.secretChoice, args.secret !== undefined, cannotGenerate);
    const fresh = newSecret();
    const generated =
      secretChoice !== 'generate'
        ? undefined
        : newChannel
          ? { secret: fresh, how: 'created' as const, channel: newChannel }
          : await ctx.services.relay.secretForGenerated(url.trim(), fresh);
    const shared = generated && generated.how !== 'plain' ? generated : undefined;
    const secret = generated ? generated.secret : secretChoice === 'none' ? undefined : secretChoice;
    const client = await ctx.services.client();
    const ingress = newChannel ? await createChannel(ctx, newChannel, secret) : url.trim();
    const body = { url: ingress, content_type: 'json' as const, events, ...(secret ? { secret } : {}) };
    let created;
    try {
      created = await withProgress('Creating the webhook…', () => client.createWebhook(repo, body));
    } catch (err) {
      if (newChannel)
        await ctx.services.relay
          .remoteApi()
          .api.deleteChannel(newChannel)
          .catch(() => undefined); // nothing left behind
      throw err;
    }
    ctx.webhooks.refresh();
    if (shared) {
      const where =
        shared.how === 'created'
          ? `a new relay channel ${shared.channel} holds it`
          : shared.how === 'relay'
            ? "it is the local relay's own"
            : `it is channel ${shared.channel}'s`;
      void vscode.window
        .showInformationMessage(
          `Webhook created with a generated secret (${where}; kept in the editor's secret storage): its deliveries arrive verified.`,
          'Copy Signing Secret',
        )
        .then((choice) => (choice === 'Copy Signing Secret' ? vscode.env.clipboard.writeText(shared.secret) : undefined));
    } else if (secret && secretChoice === 'generate') {
      // Not awaited: the command completes; the secret stays in this closure only until the toast goes.
      void vscode.window
        .showInformationMessage('Webhook created with a generated secret. Copy it now: the service will not show it again.', 'Copy Secret')
        .then((choice) => (choice === 'Copy Secret' ? vscode.env.clipboard.writeText(secret) : undefined));
    } else {
      void vscode.window.showInformationMessage('Webhook created.');
    }
    return {
      webhook: created,
      channel: newChannel,
      secretGenerated: secretChoice === 'generate',
      secretShared: shared !== undefined,
      secretHow: generated?.how,
      secretLength: secret?.length ?? 0,
    };
  },
};
export default command;

/** Whether a new channel can be offered: always on the local relay; on a remote one, with the admin token (GET /api/channels answers). */
async function mayCreateChannels(ctx: CommandContext): Promise<boolean> {
  const relay = ctx.services.relay;
  if (!relay.remoteLabel) return true;
  if (!relay.connected) return false;
  try {
    await relay.remoteApi().api.listChannels();
    return true;
  } catch {
    return false; // 403: a channel token
  }
}

/** Creates the webhook's own channel on the remote relay in use, verifying with `secret`; returns its ingress URL. */
async function createChannel(ctx: CommandContext, name: string, secret: string | undefined): Promise<string> {
  const { api, relay } = ctx.services.relay.remoteApi();
  try {
    const created = await withProgress(`Creating channel ${name} on ${relay.label}…`, () => api.createChannel({ name, secrets: secret ? [secret] : [] }));
    await ctx.services.relay.reload();
    return created.ingressUrl;
  } catch (err) {
    if (err instanceof RelayApiError && err.status === 403)
      throw new UserError(
        `The token in use on ${relay.label} is a channel token: it cannot create channels. Pick its channel's URL, or connect with the admin token.`,
      );
    throw err;
  }
}

/**
 * A typed secret checked against the relay channel `url` names (a signed test ping through its
 * ingress) before anything is created; a mismatch asks again (the URL and events kept) or, when
 * the secret came as an argument, is an error. 'generate' passes as it is; 'none' is checked unsigned.
 */
async function checkedSecret(
  ctx: CommandContext,
  url: string,
  choice: string,
  given: boolean,
  cannotGenerate: (url: string) => Promise<string | undefined>,
): Promise<string> {
  for (;;) {
    if (choice === 'generate') return choice;
    const typed = choice === 'none' ? '' : choice; // none: an unsigned ping tells whether the channel takes unsigned deliveries
    await relayReady(ctx.services.relay); // the channel the URL names is known once connected
    const problem = await withProgress('Checking the secret against the relay channel…', () => secretMismatch(ctx.services.relay, url, typed));
    if (!problem) return choice;
    if (given) throw new UserError(problem);
    const again = await askSecret(false, { note: problem, cannotGenerate: await cannotGenerate(url) });
    if (again === BACK) throw new UserError(problem);
    choice = again;
  }
}

/** The steps the arguments do not answer, in order; Back returns to the step asked before. */
async function askAll(
  args: AddWebhookArgs,
  choices: readonly UrlChoice[],
  cannotGenerate: (url: string) => Promise<string | undefined>,
): Promise<{ url: string; events: string[]; secretChoice: string }> {
  const answers = { url: args.url, events: args.events, secretChoice: args.secret };
  const steps: (() => Promise<boolean>)[] = [];
  if (args.url === undefined) steps.push(async () => ((answers.url = (await askUrl(choices, answers.url)) as string), true));
  if (args.events === undefined) {
    const back = steps.length > 0;
    steps.push(async () => {
      const r = await askEvents(answers.events ?? [], undefined, back);
      return r === BACK ? false : ((answers.events = r), true);
    });
  }
  if (args.secret === undefined) {
    const back = steps.length > 0;
    steps.push(async () => {
      const r = await askSecret(back, { cannotGenerate: await cannotGenerate(answers.url!) });
      return r === BACK ? false : ((answers.secretChoice = r), true);
    });
  }
  for (let i = 0; i < steps.length;) i = (await steps[i]!()) ? i + 1 : Math.max(0, i - 1);
  return { url: answers.url!, events: answers.events!, secretChoice: answers.secretChoice! };
}
