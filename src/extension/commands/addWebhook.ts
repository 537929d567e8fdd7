// Add Webhook: URL (relay URL offered) → events (pick many of the seven) → secret (generate/enter/none) → json.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { SUBSCRIBABLE_EVENTS } from '../../core/tree';
import { validateWebhookUrl } from '../../core/input';
import { COMMANDS } from '../ids';
import { Cancelled, UserError } from '../errors';
import { asArgs, pickRepo } from '../pickers';
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
    const url = args.url ?? (await askUrl(ctx.services.relay.webhookUrlChoices()));
    const urlProblem = validateWebhookUrl(url);
    if (urlProblem) throw new UserError(urlProblem);
    const events = args.events ?? (await askEvents());
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const unknown = events.filter((e) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(e));
    if (unknown.length) throw new UserError(`Unknown event type(s): ${unknown.join(', ')}`);
    const secretChoice = args.secret ?? (await askSecret());
    // A webhook to the local relay gets the relay's own secret (SecretStorage, shared with Start Relay), so its deliveries verify.
    const shared = secretChoice === 'generate' ? await ctx.services.relay.sharedSecretFor(url.trim()) : undefined;
    const secret = secretChoice === 'generate' ? shared ?? randomBytes(32).toString('hex') : secretChoice === 'none' ? undefined : secretChoice;
    const client = await ctx.services.client();
    const created = await client.createWebhook(repo, { url: url.trim(), content_type: 'json', events, ...(secret ? { secret } : {}) });
    ctx.webhooks.refresh();
    if (shared) {
      void vscode.window.showInformationMessage("Webhook created with the local relay's secret (kept in the editor's secret storage): its deliveries arrive verified.");
    } else if (secret && secretChoice === 'generate') {
      // Not awaited: the command completes; the secret stays in this closure only until the toast goes.
      void vscode.window
        .showInformationMessage('Webhook created with a generated secret. Copy it now: the service will not show it again.', 'Copy Secret')
        .then((choice) => (choice === 'Copy Secret' ? vscode.env.clipboard.writeText(secret) : undefined));
    } else {
      void vscode.window.showInformationMessage('Webhook created.');
    }
    return { webhook: created, secretGenerated: secretChoice === 'generate', secretShared: shared !== undefined, secretLength: secret?.length ?? 0 };
  },
};
export default command;

async function askUrl(choices: readonly { url: string; description: string }[]): Promise<string> {
  const qp = vscode.window.createQuickPick<vscode.QuickPickItem>();
  qp.title = 'Add Webhook (1/3): Payload URL';
  qp.placeholder = 'Type a URL, or pick a relay';
  qp.ignoreFocusOut = true;
  const relayItems: vscode.QuickPickItem[] = choices.map((c) => ({ label: c.url, description: c.description }));
  qp.items = relayItems;
  qp.onDidChangeValue((v) => {
    const problem = v ? validateWebhookUrl(v) : undefined;
    qp.items = v && !problem ? [{ label: v.trim(), description: 'this URL' }, ...relayItems] : relayItems;
    qp.title = problem ? `Add Webhook (1/3): Payload URL: ${problem}` : 'Add Webhook (1/3): Payload URL';
  });
  try {
    return await new Promise<string>((resolve, reject) => {
      qp.onDidAccept(() => {
        const chosen = qp.selectedItems[0]?.label ?? qp.value.trim();
        if (validateWebhookUrl(chosen)) return;
        resolve(chosen);
      });
      qp.onDidHide(() => reject(new Cancelled()));
      qp.show();
    });
  } finally {
    qp.dispose();
  }
}

export async function askEvents(current: readonly string[] = [], title = 'Add Webhook (2/3): Events'): Promise<string[]> {
  const picks = await vscode.window.showQuickPick(
    SUBSCRIBABLE_EVENTS.map((e) => ({ label: e, picked: current.includes(e) })),
    { title, canPickMany: true, ignoreFocusOut: true, placeHolder: 'Events to deliver' },
  );
  if (!picks) throw new Cancelled();
  return picks.map((p) => p.label);
}

async function askSecret(): Promise<string> {
  const pick = await vscode.window.showQuickPick(
    [
      { label: 'Generate a strong secret', description: '32 random bytes, hex', value: 'generate' },
      { label: 'Enter a secret', value: 'enter' },
      { label: 'No secret', description: 'deliveries are not signed', value: 'none' },
    ],
    { title: 'Add Webhook (3/3): Secret (content type: json)', ignoreFocusOut: true },
  );
  if (!pick) throw new Cancelled();
  if (pick.value !== 'enter') return pick.value;
  const s = await vscode.window.showInputBox({ title: 'Webhook secret', password: true, ignoreFocusOut: true, validateInput: (v) => (v.length >= 8 ? undefined : 'At least 8 characters') });
  if (!s) throw new Cancelled();
  return s;
}
