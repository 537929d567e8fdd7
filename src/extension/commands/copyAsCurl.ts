// Copy as cURL: re-send command for a delivery; signature, tokens and secrets redacted.
import * as vscode from 'vscode';
import { buildCurl, isPrintableBody } from '../../core/curl';
import { COMMANDS } from '../ids';
import type { CommandModule } from './context';
import { rawDelivery } from './rawDelivery';

const command: CommandModule = {
  id: COMMANDS.copyAsCurl,
  async run(ctx, arg) {
    const raw = await rawDelivery(ctx, arg, 'Copy as cURL');
    const curl = buildCurl(raw.url, raw.headers, raw.body);
    await vscode.env.clipboard.writeText(curl);
    const binary = !isPrintableBody(raw.body);
    const note = binary
      ? ' The body is not printable text (not UTF-8, or control characters), so the command writes its exact bytes with printf and pipes them to curl.'
      : '';
    void vscode.window.showInformationMessage(`cURL command copied (signature and secrets redacted).${note}`);
    return { curl, binary };
  },
};
export default command;
