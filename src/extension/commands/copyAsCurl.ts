// Copy as cURL: re-send command for a delivery; signature, tokens and secrets redacted.
import * as vscode from 'vscode';
import { buildCurl, utf8OrUndefined } from '../../core/curl';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';
import { rawDelivery } from './rawDelivery';

const command: CommandModule = {
  id: COMMANDS.copyAsCurl,
  async run(ctx, arg) {
    const raw = await rawDelivery(ctx, arg, 'Copy as cURL');
    const curl = buildCurl(raw.url, raw.headers, raw.body);
    await vscode.env.clipboard.writeText(curl);
    const binary = utf8OrUndefined(raw.body) === undefined;
    const note = binary ? ' The body is not valid UTF-8, so the command writes its exact bytes with printf and pipes them to curl.' : '';
    void vscode.window.showInformationMessage(`cURL command copied (signature and secrets redacted).${note}`);
    return { curl, binary };
  },
};
export default command;
