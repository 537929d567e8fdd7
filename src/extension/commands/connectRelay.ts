// Connect to Relay…: a relay the service can reach (a team relay on the internet), by address and
// token. The token goes to SecretStorage, never settings; deliveries are forwarded byte-exact to
// serviceHooks.relay.forwardUrl and acknowledged after a 2xx, resuming by seq after a restart.
import * as vscode from 'vscode';
import { parseRelayAddress } from '../../core/tree';
import { Cancelled } from '../errors';
import { COMMANDS, SETTINGS } from '../ids';
import { asArgs } from '../pickers';
import { settings } from '../config';
import type { CommandModule } from './context';

export interface ConnectRelayArgs {
  address?: string;
  token?: string;
}

const command: CommandModule = {
  id: COMMANDS.connectRelay,
  async run(ctx, arg) {
    const args = asArgs<ConnectRelayArgs>(arg);
    const address = args.address ?? (await askAddress());
    const token = args.token ?? (await askToken());
    const relay = ctx.services.relay;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Connecting to ${address}…`, cancellable: false }, () =>
      relay.connectRemote(address, token),
    );
    const forwardUrl = settings().relayForwardUrl;
    if (forwardUrl) {
      void vscode.window.showInformationMessage(`Connected to ${relay.remoteLabel}: deliveries are forwarded to ${forwardUrl}.`);
    } else {
      void vscode.window
        .showInformationMessage(`Connected to ${relay.remoteLabel}. Set the forward URL to send its deliveries to your app.`, 'Set Forward URL')
        .then((c) => (c ? vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS.relayForwardUrl) : undefined));
    }
    return { remote: relay.remoteLabel, state: relay.state, forwardTo: relay.forwardTo };
  },
};
export default command;

async function askAddress(): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Connect to Relay (1/2): Address',
    prompt: 'The relay the service delivers to, e.g. https://relay.example.com',
    placeHolder: 'https://relay.example.com',
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
    prompt: 'A channel token (or the relay admin token). Kept in the editor\'s secret storage.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter the token'),
  });
  if (value === undefined) throw new Cancelled();
  return value;
}
