// Forward Webhooks to Local App… (like `gh webhook forward`), with the relay in use: a remote one
// (Connect to Relay…) or the local one (started here, or found on serviceHooks.relay.port with the
// token in the editor's data folder). With the admin token: a channel with a fresh strong secret,
// the service webhook pointing at the channel's ingress URL with that secret, and the editor
// forwarding the channel's deliveries to the local app. With a channel token: that channel, to the
// local app. Then, as `service-hooks forward --events/--route/--ca/--skip-verify` (forwardChoices.ts):
// which events go to which app (or are skipped by the filter), and an https app's trust. Without a relay it offers Connect to Relay… or Start Relay, and
// goes on here once connected.
import { randomBytes } from 'node:crypto';
import { newSecret } from '../../core/randomToken';
import * as vscode from 'vscode';
import { routingChoicesProblem, type ForwardRouting } from '../../core/relay/forwardRouting';
import { SUBSCRIBABLE_EVENTS, channelNameFor, forwardableChannels, localAppUrlProblem, repoKey, serviceIsLocal } from '../../core/tree';
import { settings } from '../config';
import { Cancelled, UserError } from '../errors';
import { COMMANDS, RELAY_STORAGE } from '../ids';
import { asArgs, pickRepo } from './pickers';
import { BACK, askEvents } from '../webhooks/webhookInputs';
import { askRouting, askTrust } from './forwardChoices';
import type { CommandContext, CommandModule } from './context';

export interface ForwardToLocalAppArgs {
  repo?: string;
  events?: string[];
  /** The local app, e.g. http://localhost:3000/webhook */
  to?: string;
  /** An existing channel of the relay to forward (admin token): no channel or webhook is created. */
  channel?: string;
  /** Only these events are forwarded (the others are skipped by the filter); default: all the webhook sends. */
  forward?: string[];
  /** An event's own app (EVENT → URL); `to` is the default. */
  routes?: Record<string, string>;
  /** No certificate check for https apps on this machine. */
  skipVerify?: boolean;
}

const command: CommandModule = {
  id: COMMANDS.forwardToLocalApp,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    if (!relay.connected && !relay.remoteLabel) await relay.probe({ force: true }); // the demo's relay, or one another window started
    if (!relay.connected) return explainMissingRelay(relay.remoteLabel);
    const args = asArgs<ForwardToLocalAppArgs>(arg);
    const { scope } = relay.relayApi();
    if (scope.kind === 'channel') return forwardChannel(ctx, scope.channel, args, 'channel');
    if (relay.port !== undefined) warnLoopbackOnce(ctx);
    // The admin token: a new channel and webhook (the default), or a channel the relay already has.
    const existing = args.channel ?? (args.repo || args.events || args.to ? undefined : await pickChannel(ctx));
    if (existing !== undefined) return forwardChannel(ctx, existing, args, 'admin');
    const repo = await pickRepo(ctx, arg);
    const picked = args.events ?? (await askEvents([], 'Forward Webhooks to Local App (2/4): Events'));
    const events = picked === BACK ? [] : picked;
    if (events.length === 0) throw new UserError('Pick at least one event.');
    const to = (args.to ?? (await askLocalUrl())).trim();
    const problem = localAppUrlProblem(to);
    if (problem) throw new UserError(problem);
    const routing = await choices(args, events, to, 'Forward Webhooks to Local App (4/4)');
    const client = await ctx.services.client(); // signed out: fails before anything is created
    // In the status bar: a progress toast here, next to Connect to Relay's, could crowd out the
    // message with Copy Signing Secret (VS Code lets 3 toasts through per 800 ms).
    return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Setting up forwarding…' }, () =>
      setUp(ctx, repo, events, routing, client),
    );
  },
};
export default command;

async function setUp(
  ctx: CommandContext,
  repo: Parameters<typeof repoKey>[0],
  events: string[],
  routing: ForwardRouting,
  client: Awaited<ReturnType<CommandContext['services']['client']>>,
) {
  const relay = ctx.services.relay;
  const { api, relay: address } = relay.relayApi();
  const secret = newSecret();
  const channel = await api.createChannel({ name: channelNameFor(repoKey(repo), randomBytes(4).toString('hex')), secrets: [secret] });
  let webhook;
  try {
    webhook = await client.createWebhook(repo, { url: channel.ingressUrl, content_type: 'json', events, secret });
  } catch (err) {
    await api.deleteChannel(channel.name).catch(() => undefined); // nothing left behind
    throw err;
  }
  if (!webhook) throw new UserError('The service did not return the new webhook.');
  await relay.startSession(
    { relay: address.httpUrl, channel: channel.name, ingressUrl: channel.ingressUrl, repo: repoKey(repo), webhookId: webhook.id, ...routing },
    secret,
  );
  ctx.webhooks.refresh();
  offerSecret(
    `Forwarding ${repoKey(repo)} webhooks (${forwardedEvents(events, routing)}) through ${address.label} to ${whereTo(routing)}. Stop with "Stop Forwarding". Your app verifies X-Service-Signature with this webhook's signing secret.`,
    secret,
  );
  return { channel: channel.name, ingressUrl: channel.ingressUrl, webhookId: webhook.id, ...routing };
}

/** The set-up's choices: from the arguments (checked), or asked after the local URL (events and apps, then https trust). */
async function choices(args: ForwardToLocalAppArgs, events: readonly string[], to: string, title: string): Promise<ForwardRouting> {
  const given = args.to !== undefined || args.forward !== undefined || args.routes !== undefined || args.skipVerify !== undefined;
  const asked = given
    ? {
        to,
        ...(args.forward !== undefined ? { events: args.forward } : {}),
        ...(args.routes !== undefined ? { routes: args.routes } : {}),
        ...(args.skipVerify ? { skipVerify: true } : {}),
      }
    : await askTrust(await askRouting(events, to, `${title}: Events and apps`), `${title}: HTTPS trust`);
  const problem = routingChoicesProblem(asked, SUBSCRIBABLE_EVENTS, localAppUrlProblem);
  if (problem) throw new UserError(problem);
  return asked;
}

/** The apps in words: the default one, and the events with their own. */
/** The webhook's events the set-up forwards, and those its filter leaves out (recorded as skipped). */
function forwardedEvents(events: readonly string[], r: ForwardRouting): string {
  const left = events.filter((e) => r.events !== undefined && !r.events.includes(e));
  const sent = events.filter((e) => !left.includes(e));
  return left.length === 0 ? sent.join(', ') : `${sent.join(', ')}; ${left.join(', ')} skipped`;
}

function whereTo(r: ForwardRouting): string {
  const own = Object.entries(r.routes ?? {}).filter(([event]) => r.events === undefined || r.events.includes(event));
  return own.length === 0 ? r.to : `${r.to} (${own.map(([event, url]) => `${event} to ${url}`).join(', ')})`;
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

/**
 * A channel token forwards its own channel: the local URL is the only question, and its prompt says
 * what the token can and cannot do.
 */
async function forwardChannel(ctx: CommandContext, channel: string | undefined, args: ForwardToLocalAppArgs, token: 'channel' | 'admin') {
  const relay = ctx.services.relay;
  if (!channel)
    throw new UserError('The relay did not say which channel this token belongs to. Ask for the channel token again, or connect with the admin token.');
  const { relay: address } = relay.relayApi();
  const ingressUrl = relay.ingressUrl(channel);
  const prompt =
    token === 'channel'
      ? `A channel token forwards and replays channel ${channel} only. It cannot create channels or webhooks: the service webhook to ${ingressUrl} is set up with the admin token. Your app's webhook endpoint on this machine:`
      : `Channel ${channel}'s deliveries (webhooks to ${ingressUrl}) go to your app's webhook endpoint on this machine:`;
  const title = `Forward channel ${channel} of ${address.label} to Local App`;
  const to = (args.to ?? (await askLocalUrl(title, prompt))).trim();
  const problem = localAppUrlProblem(to);
  if (problem) throw new UserError(problem);
  // The webhooks to the channel are not known here: every event the service sends may come.
  const routing = await choices(args, SUBSCRIBABLE_EVENTS, to, title);
  await relay.startSession({ relay: address.httpUrl, channel, ingressUrl, repo: '', webhookId: '', ...routing });
  void vscode.window.showInformationMessage(`Forwarding channel ${channel} of ${address.label} to ${whereTo(routing)}. Stop with "Stop Forwarding".`);
  return { channel, ingressUrl, ...routing };
}

const NEW_CHANNEL = '$(add) A new channel and webhook';

/** With the admin token: a new channel (and webhook) for a repository, or one of the relay's channels that no set-up forwards yet. */
async function pickChannel(ctx: CommandContext): Promise<string | undefined> {
  const relay = ctx.services.relay;
  const taken = new Set(relay.sessions().map((f) => f.channel));
  // The status lists channels with deliveries; GET /api/channels (admin) also those with none yet.
  const listed = await relay.connection?.api.listChannels().catch(() => []);
  const channels = forwardableChannels(relay.status?.channels ?? [], listed ?? [], taken);
  if (channels.length === 0) return undefined;
  const items = [
    { label: NEW_CHANNEL, description: 'recommended: a channel with a fresh secret, and a service webhook to it', channel: undefined },
    ...channels.map((c) => ({ label: `$(symbol-namespace) ${c.name}`, description: `received ${c.received}`, detail: c.ingressUrl, channel: c.name })),
  ];
  const choice = await vscode.window.showQuickPick(items, {
    title: 'Forward Webhooks to Local App: Channel',
    placeHolder: 'Forward a new channel, or one the relay already has',
    ignoreFocusOut: true,
  });
  if (!choice) throw new Cancelled();
  return choice.channel;
}

/** Once: a relay on this machine is reachable by the emulator or a service on this network, not by the service on the internet. */
function warnLoopbackOnce(ctx: CommandContext): void {
  const state = ctx.globalState;
  const baseUrl = settings().baseUrl;
  if (serviceIsLocal(baseUrl) || state.get<boolean>(RELAY_STORAGE.loopbackWarned)) return;
  void state.update(RELAY_STORAGE.loopbackWarned, true);
  void vscode.window.showWarningMessage(
    `The relay runs on this machine (127.0.0.1): the service at ${baseUrl} cannot deliver to it. Forwarding through it works with the emulator or a service on this network; for the service on the internet, use "Connect to Relay…" with a relay it can reach.`,
  );
}

function explainMissingRelay(remote: string | undefined): { needsRelay: true } {
  const text = remote
    ? `Not connected to ${remote} right now. Forwarding needs the relay: reconnect, or start a local relay for a service on this machine or network.`
    : "Forwarding needs a relay the service can reach: connect to one on the internet (your team's relay), or start a local relay when the service is on this machine or network.";
  // Not awaited: the command ends; the buttons run the next step.
  void vscode.window.showInformationMessage(text, 'Connect to Relay…', 'Start Relay').then((choice) => {
    if (choice === 'Connect to Relay…') void vscode.commands.executeCommand(COMMANDS.connectRelay, { then: 'forward' });
    else if (choice === 'Start Relay') void vscode.commands.executeCommand(COMMANDS.startRelay, { then: 'forward' });
  });
  return { needsRelay: true };
}

async function askLocalUrl(
  title = 'Forward Webhooks to Local App (3/4): Local URL',
  prompt = "Your app's webhook endpoint on this machine (the default one: some events may go to another in the next step)",
): Promise<string> {
  const value = await vscode.window.showInputBox({
    title,
    prompt,
    value: settings().relayForwardUrl || 'http://localhost:3000/webhook',
    ignoreFocusOut: true,
    validateInput: (v) => localAppUrlProblem(v),
  });
  if (value === undefined) throw new Cancelled();
  return value;
}
