// Add Webhook: URL (relay URLs offered) → events (pick many of the seven) → secret
// (generate/enter/none) → json, with Back between the steps and URL problems shown as you type.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { validateWebhookUrl } from '../../core/input';
import { SUBSCRIBABLE_EVENTS } from '../../core/tree';
import { COMMANDS } from '../ids';
import { UserError } from '../errors';
import { asArgs, pickRepo } from '../pickers';
import { withProgress } from '../progress';
import { BACK, askEvents, askSecret, askUrl, type UrlChoice } from '../webhookInputs';
import type { CommandModule } from './context';

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
    const { url, events, secretChoice } = await askAll(args, ctx.services.relay.webhookUrlChoices());
    const urlProblem = validateWebhookUrl(url);
    if (urlProblem) throw new UserError(urlProblem);
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const unknown = events.filter((e) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(e));
    if (unknown.length) throw new UserError(`Unknown event type(s): ${unknown.join(', ')}`);
    // A generated secret must verify where the webhook delivers: a relay channel's own secret, or one added to the relay (relayManager).
    const generated = secretChoice === 'generate' ? await ctx.services.relay.secretForGenerated(url.trim(), randomBytes(32).toString('hex')) : undefined;
    const shared = generated && generated.how !== 'plain' ? generated : undefined;
    const secret = generated ? generated.secret : secretChoice === 'none' ? undefined : secretChoice;
    const client = await ctx.services.client();
    const body = { url: url.trim(), content_type: 'json' as const, events, ...(secret ? { secret } : {}) };
    const created = await withProgress('Creating the webhook…', () => client.createWebhook(repo, body));
    ctx.webhooks.refresh();
    if (shared) {
      const where = shared.how === 'created' ? `a new relay channel ${shared.channel} holds it` : shared.how === 'relay' ? "it is the local relay's own" : `it is channel ${shared.channel}'s`;
      void vscode.window
        .showInformationMessage(`Webhook created with a generated secret (${where}; kept in the editor's secret storage): its deliveries arrive verified.`, 'Copy Signing Secret')
        .then((choice) => (choice === 'Copy Signing Secret' ? vscode.env.clipboard.writeText(shared.secret) : undefined));
    } else if (secret && secretChoice === 'generate') {
      // Not awaited: the command completes; the secret stays in this closure only until the toast goes.
      void vscode.window
        .showInformationMessage('Webhook created with a generated secret. Copy it now: the service will not show it again.', 'Copy Secret')
        .then((choice) => (choice === 'Copy Secret' ? vscode.env.clipboard.writeText(secret) : undefined));
    } else {
      void vscode.window.showInformationMessage('Webhook created.');
    }
    return { webhook: created, secretGenerated: secretChoice === 'generate', secretShared: shared !== undefined, secretHow: generated?.how, secretLength: secret?.length ?? 0 };
  },
};
export default command;

/** The steps the arguments do not answer, in order; Back returns to the step asked before. */
async function askAll(args: AddWebhookArgs, choices: readonly UrlChoice[]): Promise<{ url: string; events: string[]; secretChoice: string }> {
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
      const r = await askSecret(back);
      return r === BACK ? false : ((answers.secretChoice = r), true);
    });
  }
  for (let i = 0; i < steps.length; ) i = (await steps[i]!()) ? i + 1 : Math.max(0, i - 1);
  return { url: answers.url!, events: answers.events!, secretChoice: answers.secretChoice! };
}
