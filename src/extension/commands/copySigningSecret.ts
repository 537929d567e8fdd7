// Copy Signing Secret (like `stripe listen --print-secret`): the secret a forward set-up's app
// verifies X-Service-Signature with, from SecretStorage to the clipboard; never shown or logged.
// On a set-up row, in the palette and in the relay menu.
import * as vscode from 'vscode';
import type { ForwardSession } from '../../core/tree';
import { Cancelled, UserError } from '../errors';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.copySigningSecret,
  async run(ctx, arg) {
    const relay = ctx.services.relay;
    const row = arg as { kind?: string; session?: ForwardSession } | undefined;
    const channel = row?.kind === 'relayForwarding' ? row.session!.channel : asArgs<{ channel?: string }>(arg).channel;
    const known = await relay.signingSecrets();
    if (known.length === 0) {
      throw new UserError(
        channel
          ? `The editor holds no signing secret for channel ${channel}: it was made elsewhere (a channel token's set-up). Ask whoever created the channel.`
          : 'The editor holds no signing secret for the relay in use: "Forward Webhooks to Local App…" or Start Relay makes one.',
      );
    }
    const one = channel !== undefined ? known.find((k) => k.channel === channel) : known.length === 1 ? known[0] : await pick(known);
    if (!one)
      throw new UserError(
        `The editor holds no signing secret for channel ${channel}: it was made elsewhere (a channel token's set-up). Ask whoever created the channel.`,
      );
    await vscode.env.clipboard.writeText(one.secret);
    void vscode.window.showInformationMessage(`The signing secret of ${one.label} is on the clipboard: give it to your app as its webhook secret.`);
    return { channel: one.channel, copied: true };
  },
};
export default command;

async function pick<T extends { label: string; description?: string }>(known: T[]): Promise<T> {
  const choice = await vscode.window.showQuickPick(known, { title: 'Copy Signing Secret' });
  if (!choice) throw new Cancelled();
  return choice;
}
