// Connect to Relay…: a relay the service can reach (a team relay on the internet), by address and
// token. The token goes to SecretStorage, never settings. What is forwarded is what this editor set
// up for that relay (Forward Webhooks to Local App…), acknowledged after a 2xx and resumed by seq
// after a restart; a channel token also forwards its own channel to serviceHooks.relay.forwardUrl.
// The address typed last is offered again. Run from Forward Webhooks to Local App…, it goes on there.
import * as vscode from 'vscode';
import { parseRelayAddress } from '../../core/tree';
import { Cancelled } from '../errors';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import type { RelayManager } from '../relay/relayManager';
import type { CommandModule } from './context';

export interface ConnectRelayArgs {
  address?: string;
  token?: string;
  /** 'forward': continue into Forward Webhooks to Local App… once connected (not awaited). */
  then?: 'forward';
}

const command: CommandModule = {
  id: COMMANDS.connectRelay,
  async run(ctx, arg) {
    const args = asArgs<ConnectRelayArgs>(arg);
    const relay = ctx.services.relay;
    const address = args.address ?? (await askAddress(relay.lastAddress));
    const token = args.token ?? (await askToken());
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Connecting to ${address}…`, cancellable: false }, () =>
      relay.connectRemote(address, token),
    );
    if (args.then === 'forward') void vscode.commands.executeCommand(COMMANDS.forwardToLocalApp);
    else announce(relay);
    return { remote: relay.remoteLabel, state: relay.state, forwardTo: relay.forwardTo, forwardTargets: relay.forwardTargets, scope: relay.scope };
  },
};
export default command;

/** The toast names the apps the set-ups forward to (the ones the Relay view shows), or says nothing is forwarded and how to start. */
function announce(relay: RelayManager): void {
  const label = relay.remoteLabel;
  const scope = relay.scope;
  const token = scope?.kind === 'channel' ? `a channel token (channel ${scope.channel ?? '?'})` : 'the admin token';
  const routes = relay.sessions().map((f) => `${f.channel} → ${f.to}`);
  const own = scope?.kind === 'channel' && relay.forwardTo && routes.length === 0 ? [`${scope.channel ?? 'its channel'} → ${relay.forwardTo}`] : [];
  const all = [...routes, ...own];
  if (all.length > 0) {
    void vscode.window.showInformationMessage(`Connected to ${label} with ${token}: forwarding ${all.join(', ')}.`);
    return;
  }
  void vscode.window
    .showInformationMessage(
      `Connected to ${label} with ${token}. Nothing is forwarded until you set it up: Forward Webhooks to Local App… picks the local app.`,
      'Forward Webhooks to Local App…',
    )
    .then((c) => (c ? vscode.commands.executeCommand(COMMANDS.forwardToLocalApp) : undefined));
}

async function askAddress(last: string | undefined): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Connect to Relay (1/2): Address',
    prompt: 'The relay the service delivers to, e.g. https://relay.example.com',
    placeHolder: 'https://relay.example.com',
    value: last,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const a = parseRelayAddress(v);
      return 'problem' in a ? a.problem : undefined;
    },
  });
  if (value === undefined) throw new Cancelled();
  return value;
}

async function askToken(): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Connect to Relay (2/2): Token',
    prompt: "A channel token (forwards and replays its own channel) or the relay admin token (also creates channels). Kept in the editor's secret storage.",
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter the token'),
  });
  if (value === undefined) throw new Cancelled();
  return value;
}
