// Forward Webhooks to Local App… (like `gh webhook forward`): with a connected relay, a channel with
// a fresh strong secret, the service webhook pointing at the channel's ingress URL with that
// secret, and the editor forwarding the channel's deliveries to the local app. Without a relay the
// service can reach, it says what is needed and offers Connect to Relay or Start Relay.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { channelNameFor, localAppUrlProblem, repoKey } from '../../core/tree';
import { settings } from '../config';
import { Cancelled, UserError } from '../errors';
import { COMMANDS } from '../ids';
import { asArgs, pickRepo } from '../pickers';
import { BACK, askEvents } from '../webhookInputs';
import type { CommandContext, CommandModule } from './context';

export interface ForwardToLocalAppArgs {
  repo?: string;
  events?: string[];
  /** The local app, e.g. http://localhost:3000/webhook */
  to?: string;
}

const command: CommandModule = {
  id: COMMANDS.forwardToLocalApp,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    if (!relay.remoteLabel || !relay.connected) return explainMissingRelay(relay.remoteLabel);
    const args = asArgs<ForwardToLocalAppArgs>(arg);
    const repo = await pickRepo(ctx, arg);
    const picked = args.events ?? (await askEvents([], 'Forward Webhooks to Local App (2/3): Events'));
    const events = picked === BACK ? [] : picked;
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const to = (args.to ?? (await askLocalUrl())).trim();
    const problem = localAppUrlProblem(to);
    if (problem) throw new UserError(problem);
    const client = await ctx.services.client(); // signed out: fails before anything is created
    // In the status bar: a progress toast here, next to Connect to Relay's, could crowd out the
    // message with Copy Signing Secret (VS Code lets 3 toasts through per 800 ms).
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Setting up forwarding…' }, () => setUp(ctx, repo, events, to, client));
  },
};
export default command;

async function setUp(ctx: CommandContext, repo: Parameters<typeof repoKey>[0], events: string[], to: string, client: Awaited<ReturnType<CommandContext['services']['client']>>) {
  const relay = ctx.services.relay;
  const { api, relay: address } = relay.remoteApi();
  const secret = randomBytes(32).toString('hex');
  const channel = await api.createChannel({ name: channelNameFor(repoKey(repo), randomBytes(4).toString('hex')), secrets: [secret] });
  let webhook;
  try {
    webhook = await client.createWebhook(repo, { url: channel.ingressUrl, content_type: 'json', events, secret });
  } catch (err) {
    await api.deleteChannel(channel.name).catch(() => undefined); // nothing left behind
    throw err;
  }
  if (!webhook) throw new UserError('The service did not return the new webhook.');
  await relay.startSession({ relay: address.httpUrl, channel: channel.name, ingressUrl: channel.ingressUrl, repo: repoKey(repo), webhookId: webhook.id, to });
  ctx.webhooks.refresh();
  offerSecret(`Forwarding ${repoKey(repo)} webhooks (${events.join(', ')}) through ${address.label} to ${to}. Stop with "Stop Forwarding". Your app verifies X-Service-Signature with this webhook's signing secret.`, secret);
  return { channel: channel.name, ingressUrl: channel.ingressUrl, webhookId: webhook.id, to };
}

/**
 * Like `stripe listen`, the app needs the signing secret to verify deliveries: offered once, on
 * request, to the clipboard (never shown in the notification, logged or stored by the editor).
 */
function offerSecret(text: string, secret: string): void {
  void vscode.window.showInformationMessage(text, 'Copy Signing Secret').then(async (choice) => {
    if (choice !== 'Copy Signing Secret') return;
    await vscode.env.clipboard.writeText(secret);
    void vscode.window.showInformationMessage('The signing secret is on the clipboard: give it to your app as its webhook secret.');
  });
}

function explainMissingRelay(remote: string | undefined): { needsRelay: true } {
  const text = remote
    ? `Not connected to ${remote} right now. Forwarding needs the relay: reconnect, or start a local relay for a service on this machine or network.`
    : 'Forwarding needs a relay the service can reach: connect to one on the internet (your team\'s relay), or start a local relay when the service is on this machine or network.';
  // Not awaited: the command ends; the buttons run the next step.
  void vscode.window.showInformationMessage(text, 'Connect to Relay…', 'Start Relay').then((choice) => {
    if (choice === 'Connect to Relay…') void vscode.commands.executeCommand(COMMANDS.connectRelay);
    else if (choice === 'Start Relay') void vscode.commands.executeCommand(COMMANDS.startRelay);
  });
  return { needsRelay: true };
}

async function askLocalUrl(): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Forward Webhooks to Local App (3/3): Local URL',
    prompt: 'Your app\'s webhook endpoint on this machine',
    value: settings().relayForwardUrl || 'http://localhost:3000/webhook',
    ignoreFocusOut: true,
    validateInput: (v) => localAppUrlProblem(v),
  });
  if (value === undefined) throw new Cancelled();
  return value;
}
