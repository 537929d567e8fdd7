// Change Relay Port…: sets serviceHooks.relay.port (user settings) from the "Relay failed" row, the
// relay menu, or the port-in-use message; then the Relay view looks at the new port.
import * as vscode from 'vscode';
import { Cancelled } from '../errors';
import { SETTINGS } from '../ids';
import { COMMANDS } from '../ids';
import { asArgs } from './pickers';
import { settings } from '../config';
import type { CommandModule } from './context';

const command: CommandModule = {
  id: COMMANDS.changeRelayPort,
  async run(_ctx, arg) {
    const given = asArgs<{ port?: number }>(arg).port;
    const port = given ?? Number(await ask(settings().relayPort));
    await vscode.workspace.getConfiguration().update(SETTINGS.relayPort, port, vscode.ConfigurationTarget.Global);
    return { port };
  },
};
export default command;

async function ask(current: number): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: 'Relay Port',
    prompt: `The local relay's port (now ${current}; 0 picks a free one)`,
    value: String(current === 0 ? 0 : current + 1),
    validateInput: (v) => (/^\d{1,5}$/.test(v.trim()) && Number(v) <= 65535 ? undefined : 'A port from 0 to 65535'),
  });
  if (value === undefined) throw new Cancelled();
  return value.trim();
}
